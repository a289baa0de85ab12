// `adaptive_profile { ... }` in a sweep spec, as `jetchar sweep run` shows it: the loop itself
// (which modes to profile, when to stop, the stored predictions) is
// experiments/adaptive_profile_sweep.h; this runs it and prints each profiled mode, the outcome
// and the predictions.
#pragma once

#include "experiments/adaptive_profile_sweep.h"

namespace jetchar::cli {

/// Runs experiments::run_adaptive_profile, printing each profiled mode to stderr and the outcome
/// and predictions to stdout. Returns the sweep's progress over the runs it profiled; `stopped`
/// as SweepRunner::run.
experiments::SweepProgress run_adaptive_profile(
    const experiments::proto::AdaptiveProfileSpec& spec, const experiments::SweepPlan& plan,
    experiments::ResultsStore& store, experiments::SweepJournal& journal, const experiments::SystemdNotifier& notifier,
    experiments::RunExecutor& executor, const experiments::SweepRunnerOptions& options, bool simulated, bool* stopped);

}  // namespace jetchar::cli
