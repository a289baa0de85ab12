// Which power modes to profile so that a predictor fitted on few of them generalises: spread the
// profiled modes over the knob space instead of taking them at random.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_predictor.h"
#include "analysis/predictor.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// Greedy max-min (farthest-point) design: knobs normalised to [0, 1] over the candidates
/// (frequencies on a log scale, since time goes as 1/f); starts at the mode with every knob
/// highest and repeatedly adds the candidate farthest from those chosen. Returns `count` distinct
/// indices (all when count >= candidates). Throws std::invalid_argument when a mode lacks a knob.
std::vector<std::size_t> spread_design(std::span<const PowerMode> candidates, std::size_t count);

/// Held-out MAPE (%) of a fit on a design's modes and the median over random choices of as many.
struct ProfileEvaluation {
  std::size_t profiled = 0;
  std::size_t evaluated = 0;
  std::optional<double> design_time_mape, design_energy_mape;  ///< fitted on the design's modes
  std::optional<double> random_time_mape, random_energy_mape;  ///< median over random choices
  std::optional<double> design_power_mape, random_power_mape;  ///< the auto predictor's only
  int random_trials = 0;
};

/// Fits `kind` on `count` profiled points chosen by spread_design and on `trials` seeded random
/// choices of the same size, and measures MAPE on the points not profiled.
ProfileEvaluation evaluate_profile_choice(ModelKind kind, std::span<const ConfigPoint> points, std::size_t count,
                                          int trials = 20, std::uint64_t seed = 1);

/// The same for the auto predictor (ModePredictor): fitted on the `count` points an adaptive
/// profile of `count` modes picks (adaptive_pick), and on `trials` seeded random choices. Each fit
/// chooses its forms by cross-validation, so a trial costs seconds where a fixed model's costs
/// microseconds. Throws std::invalid_argument when `count` is under 3 or leaves no point out.
ProfileEvaluation evaluate_auto_profile_choice(std::span<const ConfigPoint> points, std::size_t count, int trials,
                                               std::uint64_t seed, const ModePredictorOptions& options = {});

/// Random choices each comparison fits on: a fixed model's fit costs microseconds, the auto
/// predictor's seconds (every form on every fold), hence fewer.
inline constexpr int kRandomProfileChoices = 20, kAutoRandomProfileChoices = 5;

/// One model's evaluation of a profile of some size, or why it cannot have one.
struct ProfileComparison {
  std::string model;                            ///< the fixed model's name, or "auto"
  std::optional<ProfileEvaluation> evaluation;  ///< nullopt: `needs` says why not
  std::string needs;                            ///< "needs between L and N profiled modes"
};

/// `analyze fit --profile N`: each fixed model of `kinds` evaluated on `profiled` modes of its spread
/// design (evaluate_profile_choice), then, with `with_auto`, the auto predictor on its adaptive pick
/// (evaluate_auto_profile_choice), against random choices of as many. A model that needs more
/// modes than `profiled`, or leaves none of `points` to evaluate on, says so instead.
std::vector<ProfileComparison> compare_profile_designs(std::span<const ConfigPoint> points, std::size_t profiled,
                                                       const std::vector<ModelKind>& kinds, bool with_auto,
                                                       std::uint64_t seed, const ModePredictorOptions& options = {});

}  // namespace jetchar::analysis
