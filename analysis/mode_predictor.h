// Predicting every power mode's epoch time, power and energy from a few profiled ones, with the
// model form chosen by cross-validation and a calibrated interval on each prediction.
//
// Choice: every time form (analysis/mode_model.h) with fewer parameters than profiled modes is
// fitted leaving each profiled mode out in turn; of the physical forms the one with the least mean
// absolute relative leave-one-out error wins, a simpler form on ties within 2 %, and the power law
// replaces it only when clearly better, as below. Power keeps the first form asked for
// (the voltage form by default) unless another's left-out errors are smaller, mode by mode, by more
// than twice the standard error of the paired difference: from 15 modes the forms' left-out MAPEs
// differ by chance as much as by fit. Each left-out power fit uses the chosen time form's fit on the
// same modes.
//
// Intervals: jackknife+ (Barber, Candès, Ramdas, Tibshirani, "Predictive inference with the
// jackknife+", Ann. Statist. 49(1), 2021) on a log scale: with the leave-one-out fits ŷ₋ᵢ and their
// residuals Rᵢ = |log yᵢ − log ŷ₋ᵢ(xᵢ)|, the interval at x runs from the ⌊α(n+1)⌋-th smallest
// log ŷ₋ᵢ(x) − Rᵢ to the ⌈(1−α)(n+1)⌉-th smallest log ŷ₋ᵢ(x) + Rᵢ (the extreme one when that rank
// exceeds n). Beyond 40 profiled modes the left-out fits are those of 20 interleaved folds (CV+,
// the same paper), so a predictor fitted on a whole sweep stays fast. It widens where the left-out fits disagree (far
// from the profiled modes) and covers measurement noise, since the residuals are against measured values. Energy = time
// × power gets its own interval from the left-out fits' products.
//
// Few modes: where the upper rank ⌈(1−α)(n+1)⌉ exceeds n (n < 9 at 90 %) jackknife+ is unbounded, and
// its bounds clamped to the extreme left-out fits hold a new mode only about n/(n+1) of the time. There
// the interval is widened to contain, too, the Student-t predictive interval on the log scale:
// log ŷ(x) ± t_n(1 − α/2) · √(mean Rᵢ² + u(x)²), with u(x) the jackknife standard deviation of the
// left-out fits' log predictions at x (n degrees of freedom: the Rᵢ are n prediction errors of mean
// zero; u(x) adds the disagreement of the fits where x lies beyond the profiled modes).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_model.h"
#include "analysis/prediction_interval.h"

namespace jetchar::analysis {

struct ModePrediction {
  Interval time_s;
  std::optional<Interval> power_w, energy_j;
};

struct FormScore {
  std::string form;
  std::optional<double> loo_mape;  ///< nullopt when the form was not judged (too many parameters,
                                   ///< or cubics in a clock with fewer than four profiled levels)
};

struct ModePredictorOptions {
  double level = 0.9;  ///< coverage the intervals aim at, in (0, 1)
  std::vector<TimeForm> time_forms = all_time_forms();
  std::vector<PowerForm> power_forms = all_power_forms();  ///< the first is kept unless another is clearly better
};

class ModePredictor {
 public:
  /// Fits on `profiled` (points of one workload; only the mode varies). Points without a power
  /// leave the power and energy predictions out when fewer than 3 have one. Throws
  /// std::invalid_argument when a mode lacks a knob, a time is not positive, fewer than 3 modes are
  /// given, or the level is outside (0, 1).
  static ModePredictor fit(std::span<const ConfigPoint> profiled, const ModePredictorOptions& options = {});

  /// The left-out fits' log predictions at `mode`, one per fold: of time, and of power (empty
  /// without a power model).
  struct FoldPredictions {
    std::vector<double> log_time, log_power;
  };
  FoldPredictions fold_predictions(const PowerMode& mode) const;

  ModePrediction predict(const PowerMode& mode) const { return predict(mode, level_); }
  /// The same with the intervals at another coverage `level` in (0, 1): no refit, the left-out
  /// fits and residuals are the same at every level.
  ModePrediction predict(const PowerMode& mode, double level) const;
  /// The same from the mode's fold predictions (fold_predictions(mode)), for a caller that needs
  /// those too: each left-out fit is evaluated once.
  ModePrediction predict(const PowerMode& mode, const FoldPredictions& folds, double level) const;
  /// Mean squared left-out log residual of time and of power: how far a new measurement scatters
  /// about the fit.
  double time_residual_variance() const;
  std::optional<double> power_residual_variance() const;
  std::optional<double> energy_residual_variance() const;

  TimeForm time_form() const { return time_form_; }
  std::optional<PowerForm> power_form() const { return power_form_; }
  const std::vector<FormScore>& time_scores() const { return time_scores_; }
  const std::vector<FormScore>& power_scores() const { return power_scores_; }
  /// Leave-one-out MAPE (%) of the chosen forms on the profiled modes.
  double loo_time_mape() const { return loo_time_mape_; }
  std::optional<double> loo_power_mape() const { return loo_power_mape_; }
  std::optional<double> loo_energy_mape() const { return loo_energy_mape_; }
  double level() const { return level_; }
  std::size_t profiled() const { return profiled_; }
  const TimeModel& time_model() const { return time_full_; }

 private:
  double level_ = 0.9;
  std::size_t profiled_ = 0;
  TimeForm time_form_ = TimeForm::kSum;
  std::optional<PowerForm> power_form_;
  std::vector<FormScore> time_scores_, power_scores_;
  double loo_time_mape_ = 0;
  std::optional<double> loo_power_mape_, loo_energy_mape_;
  TimeModel time_full_;
  std::optional<PowerModel> power_full_;
  std::vector<std::size_t> fold_of_;          ///< each profiled mode's fold
  std::vector<TimeModel> time_loo_;           ///< one per fold, fitted without it
  std::vector<double> time_residual_;         ///< per mode: |log measured − log its fold's prediction|
  std::vector<PowerModel> power_loo_;         ///< one per fold
  std::vector<std::size_t> power_loo_point_;  ///< the profiled modes with a power
  std::vector<double> power_residual_, energy_residual_;
};

}  // namespace jetchar::analysis
