// `adaptive_profile { ... }` in a sweep spec: `jetchar sweep run` profiles only the power modes the
// mode predictor (analysis/adaptive_profile.h) picks — a space-filling start, then the least
// certain mode — through the sweep's own runner and store (so a stopped sweep resumes where it
// was), until the predictor's leave-one-out error is below the target or a budget (modes,
// minutes) is spent, and stores the predictions for every mode of the sweep with their intervals
// (results/mode_predictions_store.h). This is the one place where a sweep and the analysis
// predictor meet: experiments/ links jetchar::analysis for it (analysis depends on no part of
// experiments, so there is no cycle); the CLI parses the spec, calls this and prints the outcome.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/adaptive_profile.h"
#include "proto/sweep_spec.pb.h"
#include "results/mode_predictions_store.h"
#include "results/store.h"
#include "sweeps/journal.h"
#include "sweeps/plan.h"
#include "sweeps/runner.h"
#include "sweeps/systemd_notifier.h"

namespace jetchar::sweeps {

/// The study's profiling of one workload: about 2 hours (the linear model's 4 modes with full
/// epochs); what an adaptive sweep's total profiling time is compared with.
inline constexpr double kStudyProfilingHours = 2.0;

/// "42 s", "3.5 min", "2.1 h": a profiling duration as the adaptive sweep reports it.
std::string profiling_duration_text(double seconds);

/// Checks that `plan` can be profiled adaptively: every axis a device.* field, each run's mode
/// with all four knobs (cores, CPU, GPU, EMC clocks), at least initial_modes modes, and the
/// options in range. Throws std::invalid_argument naming `source`, the run or option, the value
/// and what is valid. Nothing has run yet when it throws.
void check_adaptive_profile(const proto::AdaptiveProfileSpec& spec, const SweepPlan& plan, const std::string& source);

/// One profiled mode, as the loop reports it after its runs: its label, how many modes have a
/// measured point so far (of max_modes), and the medians of its OK runs (nullopt time: no run of
/// the mode was OK, so it is left out of the fit).
struct ProfiledMode {
  std::string mode;
  std::size_t measured = 0, max_modes = 0;
  std::optional<double> time_s, power_w;
};

/// What the loop did and what it predicts.
struct AdaptiveProfileSweepResult {
  SweepProgress progress;      ///< over the runs it profiled
  bool stopped = false;        ///< the runner was stopped (a signal): nothing more is filled in
  std::size_t modes = 0;       ///< power modes of the sweep
  std::size_t candidates = 0;  ///< of those, the ones the loop could pick
  std::size_t profiled = 0;    ///< modes with a measured point
  std::string stop_reason;     ///< "target reached", "budget spent", "time budget spent (...)", ...
  double profiling_s = 0;      ///< the profiled runs' durations summed
  bool modelled = false;       ///< every profiled run's times came from a board's time model
  double level = 0.9;          ///< the intervals' level
  bool predicted = false;      ///< false when fewer than 3 modes gave an OK run: no predictor
  std::string time_form;       ///< the chosen forms (analysis/mode_model.h), when predicted
  std::optional<std::string> power_form;
  double loo_time_mape_pct = 0;  ///< the chosen forms' leave-one-out MAPE on the profiled modes
  std::optional<double> loo_power_mape_pct;
  std::vector<results::StoredModePrediction> predictions;  ///< every mode of the sweep, in plan order, as stored
  /// With an objective: the mode chosen over every mode of the sweep (analysis/predicted_choice.h),
  /// as stored beside the predictions (its mode nullopt when none is eligible).
  std::optional<results::StoredModeChoice> choice;
};

/// Called after each profiled mode's runs.
using OnProfiledMode = std::function<void(const ProfiledMode&)>;

/// Runs the adaptive loop (runs through `store` and `journal`, skipping stored runs) and, unless
/// stopped or without a predictor, stores the predictions in `store`'s file under
/// options.sweep_name. Throws as check_adaptive_profile for a plan it refuses.
AdaptiveProfileSweepResult run_adaptive_profile(const proto::AdaptiveProfileSpec& spec, const SweepPlan& plan,
                                                results::ResultsStore& store, SweepJournal& journal,
                                                const SystemdNotifier& notifier, RunExecutor& executor,
                                                const SweepRunnerOptions& options, const OnProfiledMode& on_mode = {});

}  // namespace jetchar::sweeps
