// Transfer of a widely profiled reference to a new workload or another board kind from a handful
// of profiled modes (PowerTrain's idea: Prashanthi S.K. et al., "PowerTrain: Fast, generalizable
// time and power prediction models to optimize DNN training on accelerated edges", FGCS 2024,
// which reuses a reference workload's trained network and retrains its last layers).
//
// Here the reference is a ModePredictor fitted on many modes of a reference workload (or of the
// same workload on another board kind); it carries the shape: how time and power change across
// the modes. Three candidates predict the new workload, stacked (analysis/stacking.h) by their
// leave-one-out log predictions on its profiled modes:
//   scaled    the reference's predictions with two numbers refitted per quantity, a scale and an
//             exponent on a log scale, log y(x) = a + b · log y_ref(x) (least squares, a weak
//             prior pulling b towards 1): the whole shape kept;
//   refitted  the reference's heaviest time model refitted with a prior pulling every parameter
//             towards the reference's (scaled to the new level), and its heaviest power model's
//             shape kept — the V/f curves and activity weights are the board's, the same for every
//             workload on it — with its coefficients refitted by NNLS (TimeModel/PowerModel::refit):
//             the few modes move the works they see;
//   own       with 4 to 25 modes, the new workload's own ModePredictor, for a shape unlike the
//             reference's (with more, the own ModePredictor alone is the better tool).
// So the reference's shape is used where it holds and the workload's own fit where it does not.
//
// Intervals: jackknife+ over the stacked fits leaving each profiled mode out (see
// analysis/mode_predictor.h), widened by the left-out fits' disagreement at x.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_predictor.h"

namespace jetchar::analysis {

struct TransferFit {
  double offset = 0, exponent = 1;          ///< log y = offset + exponent · log y_ref
};

class ModeTransfer {
 public:
  /// Fits the transfer of `reference` to `profiled` (points of the new workload; only the mode
  /// varies). Throws std::invalid_argument when fewer than 2 modes are given, a mode lacks a knob,
  /// a time is not positive, or the level is outside (0, 1). Power is transferred when the
  /// reference predicts it and at least 2 profiled modes have one.
  static ModeTransfer fit(const ModePredictor& reference, std::span<const ConfigPoint> profiled, double level = 0.9);

  ModePrediction predict(const PowerMode& mode) const;

  /// The candidates' shares of the stacked time and power: scaled, refitted, own (0 when absent).
  const std::array<double, 3>& time_weights() const { return time_weight_; }
  const std::array<double, 3>& power_weights() const { return power_weight_; }
  bool predicts_power() const { return !power_points_.empty(); }
  /// Leave-one-out MAPE (%) of the stacked time and power on the profiled modes.
  double loo_time_mape() const { return loo_time_mape_; }
  std::optional<double> loo_power_mape() const { return loo_power_mape_; }
  std::size_t profiled() const { return profiled_; }
  double level() const { return level_; }

 private:
  /// A candidate's log time / power at `mode`: of its full fit (fold nullopt) or of the fit
  /// leaving profiled mode `fold` out.
  /// `ref` is the reference's prediction at `mode`, `own` the own fits' (full, then per fold), when
  /// the caller has them.
  struct At {
    const PowerMode& mode;
    ModePrediction ref;
    std::vector<std::optional<ModePrediction>> own;   ///< [0] the full fit, [1 + i] leaving mode i out
  };
  At at(const PowerMode& mode) const;
  double log_time(std::size_t candidate, const At& x, std::optional<std::size_t> fold) const;
  double log_power(std::size_t candidate, const At& x, std::optional<std::size_t> fold) const;

  ModePredictor reference_;                 ///< copied, so the transfer outlives the caller's
  double level_ = 0.9;
  std::size_t profiled_ = 0;
  // scaled
  TransferFit time_;
  std::optional<TransferFit> power_;
  std::vector<TransferFit> time_loo_, power_loo_;   ///< power_loo_ indexed by profiled mode
  // refitted
  std::optional<TimeModel> refit_time_;
  std::optional<PowerModel> refit_power_;
  std::vector<TimeModel> refit_time_loo_;
  std::vector<PowerModel> refit_power_loo_;         ///< indexed by profiled mode
  // own
  std::optional<ModePredictor> own_;
  std::vector<ModePredictor> own_loo_;
  std::array<double, 3> time_weight_{1, 0, 0}, power_weight_{1, 0, 0};
  std::vector<double> time_residual_, power_residual_, energy_residual_;
  std::vector<std::size_t> power_points_;   ///< the profiled modes with a power (indices)
  double loo_time_mape_ = 0;
  std::optional<double> loo_power_mape_;
};

}  // namespace jetchar::analysis
