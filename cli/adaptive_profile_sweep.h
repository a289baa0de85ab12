// `adaptive_profile { ... }` in a sweep spec: `jetchar sweep run` profiles only the power modes the
// mode predictor (analysis/adaptive_profile.h) picks — a space-filling start, then the least
// certain mode — through the sweep's own runner and store (so a stopped sweep resumes where it
// was), until the predictor's leave-one-out error is below the target or a budget (modes,
// minutes) is spent, and stores the predictions for every mode of the sweep with their intervals
// (experiments/mode_predictions_store.h). The glue between experiments/ and analysis/ lives here
// because only the CLI sees both.
#pragma once

#include <filesystem>
#include <string>

#include "experiments/proto/sweep_spec.pb.h"
#include "experiments/results_store.h"
#include "experiments/sweep_journal.h"
#include "experiments/sweep_plan.h"
#include "experiments/sweep_runner.h"
#include "experiments/systemd_notifier.h"

namespace jetchar::cli {

/// Checks that `plan` can be profiled adaptively: every axis a device.* field, each run's mode
/// with all four knobs (cores, CPU, GPU, EMC clocks), at least initial_modes modes, and the
/// options in range. Throws std::invalid_argument naming `source`, the run or option, the value
/// and what is valid. Nothing has run yet when it throws.
void check_adaptive_profile(const experiments::proto::AdaptiveProfileSpec& spec, const experiments::SweepPlan& plan,
                            const std::string& source);

/// Runs the adaptive loop (runs through `runner`'s store and journal, skipping stored runs),
/// prints its outcome and the predictions, and stores them in `store_file` under the sweep's
/// name. Returns the sweep's progress over the runs it profiled; `stopped` as SweepRunner::run.
experiments::SweepProgress run_adaptive_profile(
    const experiments::proto::AdaptiveProfileSpec& spec, const experiments::SweepPlan& plan,
    experiments::ResultsStore& store, experiments::SweepJournal& journal, const experiments::SystemdNotifier& notifier,
    experiments::RunExecutor& executor, const experiments::SweepRunnerOptions& options, bool simulated, bool* stopped);

}  // namespace jetchar::cli
