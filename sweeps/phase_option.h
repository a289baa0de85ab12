// `jetchar train --phase`: one pretraining phase (proto PhaseSpec, experiments/training_phases.h)
// as comma-separated KEY=VALUE pairs, e.g. "seq=128,steps=900,batch=64,accumulate=4,lr=6e-3,warmup=0.28".
// seq and steps are required; batch, accumulate, lr and warmup fall back to the workload's.
#pragma once

#include <string>
#include <string_view>

#include "proto/experiment_spec.pb.h"

namespace jetchar::sweeps {

/// Throws std::invalid_argument starting "phase '<text>'" and naming the bad pair, its value and
/// what is valid. A phase's text (results::phase_text) parses to the same phase.
proto::PhaseSpec parse_phase_option(std::string_view text);

}  // namespace jetchar::sweeps
