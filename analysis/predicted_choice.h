// Choosing a power mode from predictions: every mode of a modes file, measured or predicted, judged
// against a budget with a stated confidence, with how much a better eligible mode might save.
//
// A predicted mode is eligible only where the upper bound of its one-sided interval at the
// confidence c meets the budget: the upper end of the predictor's two-sided interval at level
// 2c − 1 (jackknife+, analysis/mode_predictor.h), so that a mode whose point prediction sits on the
// budget line is not taken. A measured mode scatters too: its bound is its measurement times
// exp(z_c · r), r the root-mean-square left-out log residual of the budgeted quantity (they hold
// the measurement noise and the model's error, so the margin errs on the safe side). Of the eligible modes the
// one with the least point objective (energy under a time budget, time under a power or energy
// budget) is chosen.
//
// How sure the choice is comes from the left-out fits as samples of the model: fold k's log
// prediction of a mode, moved away from the folds' mean by √(K − 1) times its deviation (K folds;
// the jackknife pseudo-values, whose spread is the jackknife's variance). In each sample the
// regret is how much the least objective over the eligible modes undercuts the chosen one's; the
// expected regret is its mean over the samples, and the probability that the choice is within 1 %
// of the best eligible mode the share of samples where it is. Measured modes are fixed at their
// measurements in every sample.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_choice.h"
#include "analysis/mode_predictor.h"

namespace jetchar::analysis {

struct PredictedChoice {
  std::size_t index = 0;  ///< into the modes given
  bool measured = false;  ///< judged by its measurement
  /// Its figures: measured ones with low = high = value, or predictions with their intervals at
  /// the predictor's level; power and energy absent without a power model or measurement.
  Interval time_s;
  std::optional<Interval> power_w, energy_j;
  double objective = 0;            ///< the point value minimised: energy (J) or time (s)
  std::size_t eligible = 0;        ///< modes that met the budget at the confidence
  double expected_regret_pct = 0;  ///< mean over the samples, % of the chosen objective
  double within_one_pct_probability = 0;
};

/// The choice among `modes` under `budget` (time, power or energy; not a Zeus cost) at
/// `confidence` in (0.5, 1), with `measured[i]` the measured point at modes[i] or nullptr; nullopt
/// when no mode is eligible. A power or energy budget needs the predictor's power model or a
/// measurement: a mode with neither is not eligible. Throws std::invalid_argument for a Zeus
/// budget, a negative budget, a confidence outside (0.5, 1), or sizes that differ.
std::optional<PredictedChoice> choose_from_predictions(const ModePredictor& predictor, std::span<const PowerMode> modes,
                                                       std::span<const ConfigPoint* const> measured,
                                                       const Budget& budget, double confidence = 0.9);

/// The untried mode whose measurement is expected to improve the choice most (expected
/// improvement under the constraint): over the samples above, the mean of how much less than the
/// incumbent's (the choice now) its objective is, counted only in samples where it meets the
/// budget; with no incumbent, the mode most often meeting it. Only predicted modes with samples
/// are candidates; nullopt when none could improve the choice in any sample. Throws as
/// choose_from_predictions does, and for a `tried` of another size.
std::optional<std::size_t> most_decisive(const ModePredictor& predictor, std::span<const PowerMode> modes,
                                         std::span<const ConfigPoint* const> measured, const std::vector<bool>& tried,
                                         const Budget& budget, double confidence = 0.9);

}  // namespace jetchar::analysis
