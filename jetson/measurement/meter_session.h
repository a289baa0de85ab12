// External meters alongside the onboard sampler: one serial reader per meter, started before the
// measured work and stopped after it. At stop their readings go through the one alignment policy
// (meter_alignment.h) and are then integrated over any window of the onboard clock.
//
// Start waits until each meter has sent two reports after its first arrival, and stop waits for two
// more, so that a window opened after start and closed before stop is covered end to end (an
// averaging meter's report covers the time before it only once the next one follows). A meter that
// is gone costs that wait once.
//
// A meter that disappears mid-run does not fail it: the onboard measurement is the primary figure
// and a meter an independent check. Its gaps are kept (a gap still open at stop included), and a
// window a gap touches has no whole energy (MeterWindowEnergy::whole_energy_mj).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/energy/energy_integrator.h"
#include "jetson/energy/power_trace.h"
#include "jetson/measurement/meter_alignment.h"
#include "jetson/meters/meter_protocol.h"
#include "jetson/meters/meter_reading.h"
#include "jetson/meters/serial_meter_reader.h"

namespace jetchar::jetson::measurement {

struct MeterSpec {
  std::string protocol;                  ///< one of meters::kMeterProtocolNames
  std::string device;                    ///< a path of this machine's /dev (the meter hangs off the host)
  std::chrono::nanoseconds interval{0};  ///< 0: the protocol's default
  /// Where the protocol came from, prefixed to errors ("--meter", "measurement.meters[0].protocol").
  std::string origin = "meter";

  std::string name() const { return protocol + ":" + device; }
};

/// Parses PROTOCOL:DEVICE (e.g. "wattsup:/dev/ttyUSB0"). Throws std::invalid_argument naming the
/// text, the expected form and the protocols. The protocol itself is checked by MeterSession.
MeterSpec parse_meter_spec(std::string_view text, std::string_view origin);

/// One meter's energy over one window of the onboard clock.
struct MeterWindowEnergy {
  std::string meter;
  energy::ChannelEnergy channel;  ///< integrated over the part of the window the meter covered
  std::int64_t gap_ns = 0;        ///< time inside the window the reader recorded as a gap
  /// The energy when the meter saw the window whole (covered, no gap); a bridged gap would be a guess.
  std::optional<double> whole_energy_mj() const {
    return channel.complete && gap_ns == 0 ? channel.energy_mj : std::nullopt;
  }
};

/// One meter over a whole run.
struct MeterRunSummary {
  std::string meter;
  std::uint64_t readings = 0;
  std::uint32_t gap_count = 0;  ///< gaps that touch the run
  std::int64_t gap_ns = 0;      ///< their time inside the run
  std::uint64_t reconnects = 0;
  std::string last_error;
  std::optional<std::int64_t> offset_ns;  ///< applied offset, when one was found
  std::string alignment;                  ///< MeterAlignment::describe(), or "none (no readings)"
};

/// What stop() aligns against.
struct AlignmentContext {
  std::span<const std::int64_t> marker_edges_ns;  ///< the run's GPIO marker edges, empty when none
  const energy::PowerTrace* onboard = nullptr;    ///< null when absent or modelled
  std::string no_onboard_reason = "no onboard power to align with";
};

class MeterSession {
 public:
  enum class Open {
    kInBackground,  ///< a device that cannot be opened is retried in the background (a run's meter)
    kRequired,      ///< start() throws when the first open fails (a meter named on the command line)
  };

  /// One reader per spec. Throws std::invalid_argument "<origin>: ..." for an unknown
  /// protocol or interval. Nothing is opened before start().
  explicit MeterSession(std::vector<MeterSpec> specs);
  ~MeterSession();
  MeterSession(const MeterSession&) = delete;
  MeterSession& operator=(const MeterSession&) = delete;

  bool empty() const { return meters_.empty(); }
  std::size_t size() const { return meters_.size(); }

  /// Starts every reader and waits for its first reports (see above). With Open::kRequired a
  /// device that cannot be opened throws std::system_error with the open's errno, naming it.
  void start(Open open = Open::kInBackground);
  /// Readings received since the last call, per meter (appended to out[i]), for live display and
  /// logs; after stop() once more, with those stop() collected. Every reading is kept for the
  /// alignment either way.
  void drain(std::vector<std::vector<meters::MeterReading>>& out);
  /// Stops the readers and aligns everything they read.
  void stop(const AlignmentContext& context);

  const MeterSpec& spec(std::size_t meter) const;
  const meters::MeterProtocol& protocol(std::size_t meter) const;
  meters::SerialReaderStatus status(std::size_t meter) const;
  std::vector<meters::MeterGap> gaps(std::size_t meter) const;
  /// Readings drained from the meter so far (every one the meter sent that arrived whole).
  std::size_t received(std::size_t meter) const;

  /// After stop(): the alignment of each meter (its trace is on the onboard time base).
  const MeterAlignment& alignment(std::size_t meter) const;
  /// After stop(): each meter's energy over [begin_ns, end_ns] of the onboard clock, in spec order.
  std::vector<MeterWindowEnergy> energy(std::int64_t begin_ns, std::int64_t end_ns) const;
  /// After stop(): each meter over the run [begin_ns, end_ns].
  std::vector<MeterRunSummary> summaries(std::int64_t begin_ns, std::int64_t end_ns) const;

 private:
  struct Meter;
  std::vector<std::unique_ptr<Meter>> meters_;
};

}  // namespace jetchar::jetson::measurement
