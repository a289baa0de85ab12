// Choosing which power modes to profile: a space-filling design that is not corner-heavy for the
// first three quarters of the budget, then active learning — profile next the candidate whose
// measurement would most narrow the predictions of every candidate (from the left-out fits'
// covariance, ModePredictor::fold_predictions), refit, until the estimated error is below a
// target or the budget of modes is spent.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_choice.h"
#include "analysis/mode_predictor.h"

namespace jetchar::analysis {

/// Greedy maximum-projection design over the knobs normalised to [0, 1] (cores and clocks on a log
/// scale): starts at the candidate nearest the centre, then adds the candidate least crowded by
/// those chosen, counting closeness in every knob separately, so each knob's levels are spread
/// (a Latin-hypercube-like design) rather than pushed to the corners a max-min design favours.
/// Returns `count` distinct indices (all when count >= candidates). Throws std::invalid_argument
/// when a mode lacks a knob.
std::vector<std::size_t> space_filling_design(std::span<const PowerMode> candidates, std::size_t count);

struct AdaptiveProfileOptions {
  std::size_t initial_modes = 8;  ///< space-filling start (at least 3)
  std::size_t max_modes = 15;     ///< budget: never profile more
  /// Stop once the chosen forms' leave-one-out MAPE of time and of power (%) are both at or
  /// below this (checked from initial_modes on). Without it the whole budget is spent.
  std::optional<double> target_mape_pct;
  ModePredictorOptions predictor;
  /// Profiling aimed at a choice: past the space-filling part, each pick is the candidate whose
  /// measurement is expected to improve the choice under `budget` most (most_decisive,
  /// analysis/predicted_choice.h; the variance pick where no candidate could), and the loop stops
  /// once the choice's probability of lying within 1 % of the best eligible mode reaches
  /// `target_probability` (checked from initial_modes on).
  struct Decision {
    Budget budget;
    double confidence = 0.9;
    std::optional<double> target_probability;
  };
  std::optional<Decision> decision;
};

/// Measures one mode; nullopt when the run failed (the mode is then skipped, not retried).
using MeasureMode = std::function<std::optional<ConfigPoint>(const PowerMode& mode)>;

struct AdaptiveProfileResult {
  std::vector<std::size_t> profiled;       ///< indices into the candidates, in the order measured
  std::vector<std::size_t> failed;         ///< measured but nothing came back
  std::vector<ConfigPoint> points;         ///< the measured points, in the order measured
  std::optional<ModePredictor> predictor;  ///< fitted on `points`; nullopt with fewer than 3
  std::string stop_reason;                 ///< "target reached", "choice settled", "budget spent", "no candidates left"
};

/// Throws std::invalid_argument when initial_modes < 3 or max_modes < initial_modes, or a
/// candidate lacks a knob.
AdaptiveProfileResult adaptive_profile(std::span<const PowerMode> candidates, const MeasureMode& measure,
                                       const AdaptiveProfileOptions& options);

/// The indices of the `count` of `points` (measured modes of one workload) that an adaptive
/// profile with max_modes `count`, no target and the default start would profile, each mode
/// measured as its point: the space-filling design up to the start's size, past it the design for
/// three quarters of `count` and then the most informative picks. How an existing sweep shows
/// what the adaptive loop would reach on it. Throws as adaptive_profile does.
std::vector<std::size_t> adaptive_pick(std::span<const ConfigPoint> points, std::size_t count,
                                       const ModePredictorOptions& options = {});
/// The whole profile adaptive_pick runs: its picks (`profiled`) and, past the space-filling start,
/// the predictor fitted on them, so that a caller need not fit it again; with `decision`, the picks
/// aimed at that choice (AdaptiveProfileOptions::decision).
AdaptiveProfileResult adaptive_profile_of(
    std::span<const ConfigPoint> points, std::size_t count, const ModePredictorOptions& options = {},
    const std::optional<AdaptiveProfileOptions::Decision>& decision = std::nullopt);

/// Up to `count` of `candidates` to profile next after `profiled` (at least 3 measured modes of
/// one workload), in order: each the candidate whose measurement would most narrow the
/// predictions of all candidates (as the adaptive loop picks), after the ones before it were
/// added at their predicted values, so that the suggestions spread instead of clustering where the
/// profiled modes leave a gap. Candidates with a profiled mode's knobs are skipped. Throws
/// std::invalid_argument for fewer than 3 profiled modes or a candidate without its knobs, and as
/// ModePredictor::fit does.
std::vector<std::size_t> modes_to_profile_next(std::span<const ConfigPoint> profiled,
                                               std::span<const PowerMode> candidates, std::size_t count,
                                               const ModePredictorOptions& options = {});

}  // namespace jetchar::analysis
