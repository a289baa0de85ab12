// The run's external meters as the results store records them: the meters of the run's measurement
// session (jetson/measurement/measurement_session.h, the session `jetchar monitor` uses too)
// turned into proto records, and MeasurementSpec.meters turned into meter specs.
//
// A meter that disappears mid-run does not fail the run (jetson/measurement/meter_session.h says
// why): the run stays OK, the meter's gap is recorded (per epoch: gap_s, and energy_j absent for
// every window a gap touches; per run: the gaps, their total time and the reader's last error).
#pragma once

#include <google/protobuf/repeated_field.h>

#include <cstdint>
#include <vector>

#include "jetson/energy/power_trace.h"
#include "jetson/measurement/meter_session.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments {

/// MeasurementSpec.meters as meter specs; errors name measurement.meters[i].
std::vector<jetson::measurement::MeterSpec> meter_specs(
    const google::protobuf::RepeatedPtrField<proto::MeterSpec>& meters);

/// After the session stopped: each meter's energy over [begin_ns, end_ns] (onboard time), in spec
/// order; energy_j only for a window the meter saw whole.
std::vector<proto::MeterEnergy> meter_energy_records(const jetson::measurement::MeterSession& meters,
                                                     std::int64_t begin_ns, std::int64_t end_ns);
/// After the session stopped: each meter over the run [begin_ns, end_ns] (gaps counted inside it).
std::vector<proto::MeterSummary> meter_summary_records(const jetson::measurement::MeterSession& meters,
                                                       std::int64_t begin_ns, std::int64_t end_ns);
/// After the session stopped: each meter's readings on the onboard time base, one channel named as
/// the meter ("ina:/dev/ttyACM0"), in spec order.
std::vector<const jetson::energy::PowerTrace*> meter_traces(const jetson::measurement::MeterSession& meters);

}  // namespace jetchar::experiments
