// Energy per optimizer step of each measured split, from the measurement session that sampled the
// board while the splits ran in their child processes: the probes report their timed span on
// CLOCK_MONOTONIC, the clock of the power trace, so the span is a window of the same trace.
#pragma once

#include <vector>

#include "experiments/frontier/batch_frontier.h"
#include "jetson/measurement/measurement_session.h"

namespace jetchar::experiments {

/// Sets step_energy_j and energy_source of every fitted split whose span the stopped `session`'s
/// onboard total covers; leaves them absent where the board has no power channel.
void attach_step_energy(std::vector<SplitMeasurement>& splits, jetson::measurement::MeasurementSession& session);

}  // namespace jetchar::experiments
