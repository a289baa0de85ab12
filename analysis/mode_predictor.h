// Predicting every power mode's epoch time, power and energy from a few profiled ones, with the
// model form chosen by cross-validation and a calibrated interval on each prediction.
//
// Choice: every time form (analysis/mode_model.h) with fewer parameters than profiled modes is
// fitted leaving each profiled mode out in turn; the prediction is the stacked combination of the
// forms' log predictions whose non-negative weights (summing to one) best match the measured
// values from the left-out fits (Breiman's stacking): with a few noisy modes, averaging forms
// that cross-validate about as well varies less than choosing one. The power forms are stacked
// the same way, each left-out fit using the heaviest time form's fit on the same modes.
//
// Intervals: jackknife+ (Barber, Candès, Ramdas, Tibshirani, "Predictive inference with the
// jackknife+", Ann. Statist. 49(1), 2021) on a log scale: with the leave-one-out fits ŷ₋ᵢ and their
// residuals Rᵢ = |log yᵢ − log ŷ₋ᵢ(xᵢ)|, the interval at x runs from the ⌊α(n+1)⌋-th smallest
// log ŷ₋ᵢ(x) − Rᵢ to the ⌈(1−α)(n+1)⌉-th smallest log ŷ₋ᵢ(x) + Rᵢ (the extreme one when that rank
// exceeds n). Beyond 40 profiled modes the left-out fits are those of 20 interleaved folds (CV+,
// the same paper), so a predictor fitted on a whole sweep stays fast. It widens where the left-out fits disagree (far from the profiled modes) and covers
// measurement noise, since the residuals are against measured values. Energy = time × power gets
// its own interval from the left-out fits' products.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_model.h"

namespace jetchar::analysis {

struct Interval {
  double value = 0;                         ///< the fit on every profiled mode
  double low = 0, high = 0;                 ///< the interval at the predictor's level
};

struct ModePrediction {
  Interval time_s;
  std::optional<Interval> power_w, energy_j;
};

struct FormScore {
  std::string form;
  std::optional<double> loo_mape;           ///< nullopt when the form has too many parameters
  double weight = 0;                        ///< its share of the stacked prediction (0 to 1)
};

struct ModePredictorOptions {
  double level = 0.9;                       ///< coverage the intervals aim at, in (0, 1)
  std::vector<TimeForm> time_forms = all_time_forms();
  std::vector<PowerForm> power_forms = default_power_forms();
};

class ModePredictor {
 public:
  /// Fits on `profiled` (points of one workload; only the mode varies). Points without a power
  /// leave the power and energy predictions out when fewer than 3 have one. Throws
  /// std::invalid_argument when a mode lacks a knob, a time is not positive, fewer than 3 modes are
  /// given, or the level is outside (0, 1).
  static ModePredictor fit(std::span<const ConfigPoint> profiled, const ModePredictorOptions& options = {});

  ModePrediction predict(const PowerMode& mode) const;
  /// Spread of the left-out fits' log predictions of time and power at `mode` (their jackknife
  /// standard deviations added in quadrature): how unsure the predictor is there.
  double uncertainty(const PowerMode& mode) const;

  /// Scales every interval's log half-widths (below and above the value) by these factors (each
  /// at least 1; energy takes the larger): the correction an adaptive design finds from how its
  /// modes were predicted before they were profiled (analysis/adaptive_profile.h). Throws
  /// std::invalid_argument for a factor below 1 or not finite.
  void widen_intervals(double time_factor, double power_factor);
  double time_interval_factor() const { return time_widen_; }
  double power_interval_factor() const { return power_widen_; }

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
  /// The heaviest power form's fit on every profiled mode; nullptr without power.
  const PowerModel* power_model() const;

 private:
  struct TimeMember {
    TimeForm form;
    double weight;
    TimeModel full;                         ///< fitted on every profiled mode
    std::vector<TimeModel> folds;           ///< one per fold, fitted without it
  };
  struct PowerMember {
    PowerForm form;
    double weight;
    PowerModel full;
    std::vector<PowerModel> folds;
  };
  /// The stacked log time / power at `k`: of the full fits, or of one fold's fits.
  double log_time(const ModeKnobs& k, std::optional<std::size_t> fold) const;
  double log_power(const ModeKnobs& k, std::optional<std::size_t> fold) const;

  double level_ = 0.9;
  double time_widen_ = 1, power_widen_ = 1;
  std::size_t profiled_ = 0;
  TimeForm time_form_ = TimeForm::kSum;
  std::optional<PowerForm> power_form_;
  std::vector<FormScore> time_scores_, power_scores_;
  double loo_time_mape_ = 0;
  std::optional<double> loo_power_mape_, loo_energy_mape_;
  std::vector<TimeMember> time_members_;    ///< the forms with a weight
  std::vector<PowerMember> power_members_;
  TimeModel time_full_;                     ///< the heaviest time form's fit: the power forms' activity
  std::vector<TimeModel> time_loo_;         ///< and its fold fits
  std::vector<std::size_t> fold_of_;        ///< each profiled mode's fold
  std::vector<double> time_residual_;       ///< per mode: |log measured − log its fold's stacked prediction|
  std::vector<std::size_t> power_loo_point_;  ///< the profiled modes with a power
  std::vector<double> power_residual_, energy_residual_;
};

}  // namespace jetchar::analysis
