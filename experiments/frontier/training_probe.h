// The body of a frontier probe, run inside the child process (`jetchar frontier-probe`): a short
// training run of the requested model on synthetic token batches of the requested sequence length,
// `steps` optimizer steps of `micro_batch` × `accumulate`, under the memory budget
// (address_space_budget.h) set after LibTorch has been warmed up and before the model is built.
#pragma once

#include "experiments/frontier/probe_protocol.h"
#include "sysfs/root.h"

namespace jetchar::experiments {

/// Runs the probe in this process, which it leaves with RLIMIT_AS lowered (it is meant to be the
/// last thing a probe process does). Out of memory is an outcome, as are other failures of the
/// run; an invalid request (unknown model, a model without token input, a bad precision or
/// device) throws std::invalid_argument naming it.
ProbeOutcome run_training_probe(const ProbeRequest& request, const sysfs::Root& root);

}  // namespace jetchar::experiments
