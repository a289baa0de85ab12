// External meters alongside the onboard sampler during a run: one serial reader per
// MeasurementSpec.meters entry, started before the workload and stopped after it. Afterwards the
// readings are put on the onboard time base and integrated over the same windows (epochs) as the
// onboard trace.
//
// Alignment: the meter's report times are reconstructed from the host receive times and the
// report sequence (energy::fit_meter_clock, which removes the variable USB/serial delay); when the
// meter echoes the GPIO marker (ina-line) and the run toggled a marker line, the remaining offset
// comes from the marker edges both saw (energy::offset_from_marker_edges). Cross-correlation is
// not used: on a simulated board the meter's signal is unrelated to the modelled onboard power.
//
// A meter that disappears mid-run does not fail the run: the onboard measurement is the run's
// primary figure and the meter an independent check. The run stays OK, the meter's gap is
// recorded (per epoch: gap_s, and energy_j absent for every window a gap touches; per run: the
// gaps, their total time and the reader's last error) and the run's reason says so.
#pragma once

#include <google/protobuf/repeated_field.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "experiments/proto/run_result.pb.h"
#include "jetson/energy/power_trace.h"

namespace jetchar::experiments {

class MeterSession {
 public:
  /// One reader per meter. Throws std::invalid_argument naming measurement.meters[i] for an
  /// unknown protocol. Nothing is opened before start().
  explicit MeterSession(const google::protobuf::RepeatedPtrField<proto::MeterSpec>& meters);
  ~MeterSession();
  MeterSession(const MeterSession&) = delete;
  MeterSession& operator=(const MeterSession&) = delete;

  bool empty() const;
  /// Starts every reader (they open their devices in their own threads).
  void start();
  /// Stops the readers and aligns what they read. `marker_edges_ns`: times the run's GPIO marker
  /// was driven (empty when none).
  void stop(std::span<const std::int64_t> marker_edges_ns = {});

  /// After stop(): each meter's energy over [begin_ns, end_ns] (onboard time), in spec order.
  std::vector<proto::MeterEnergy> energy(std::int64_t begin_ns, std::int64_t end_ns) const;
  /// After stop(): each meter over the run [begin_ns, end_ns] (gaps counted inside it).
  std::vector<proto::MeterSummary> summaries(std::int64_t begin_ns, std::int64_t end_ns) const;
  /// After stop(): each meter's readings on the onboard time base, one channel named as the meter
  /// ("ina:/dev/ttyACM0"), in spec order.
  std::vector<const jetson::energy::PowerTrace*> traces() const;

 private:
  struct Meter;
  std::vector<std::unique_ptr<Meter>> meters_;
};

}  // namespace jetchar::experiments
