// Predicting a new workload's epoch time, power and energy on every power mode from a handful of
// its own profiled modes (3–5) and a reference workload profiled widely on the same board kind
// (analysis/reference_model.h): PowerTrain's transfer (Gupta et al., FGCS 2024), which retrains
// the last layers of a network fitted on a reference, done with jetchar's physical terms.
//
// What the new workload keeps from the reference: how each term responds to the clocks and cores
// (the reference's fitted time form, its overlap exponents and core limit, and each rail's V/f
// response). What it fits: one multiplier per term.
//   time   t(x) = combine(s0·d(x), s1·A(x), s2·B(x), s3·C_serial(x), s4·C_parallel(x))
//          the reference's fixed, GPU, DRAM and CPU terms at mode x rescaled, combined by the
//          reference's form (sum, p-norm overlaps); s = e^u fitted by Levenberg–Marquardt on log
//          residuals
//   power  P(x) = r0·base + r1·leakage(x) + r2·cpu(x, uc) + r3·gpu(x, ug) + r4·emc(x, um)
//          the reference's rail terms evaluated with the NEW workload's busy shares (from its
//          transferred time model), r ≥ 0 by non-negative least squares on relative residuals
// Both under a prior that pulls the multipliers toward one common scale (u_j − ū, r_j − r̄, each
// times a weight): with a strong prior the new workload is the reference rescaled, with a weak
// one each term follows its own data. The weight is chosen per quantity by leave-one-out error
// over {0.03, 0.1, 0.3, 1, 3, 10}, the stronger prior on ties within 2 %.
//
// Intervals: jackknife+ on a log scale from the leave-one-out fits, as analysis/mode_predictor.h
// builds them (20 interleaved folds beyond 40 profiled modes).
//
// A reference of another kind of workload keeps shapes the new workload does not have (a
// GPU-bound time form for a launch-bound workload). So from 8 profiled modes the workload's own
// mode predictor is fitted too, and when its leave-one-out MAPE of time plus power is lower than
// the transfer's, its predictions are the ones given (adapted() is then false). Below 8 its
// left-out fits (on 7 modes or fewer) judge it too kindly: compared from 3 modes, it replaced a
// transfer that predicted better in 3 of the 30 cells at 3 and 5 modes of prediction_bench
// --transfer.
//
// Another board kind: the reference's model is a function of absolute clocks. A new workload on
// another board kind is either predicted at its own clocks (ClockMapping::kAbsolute: a GHz is a
// GHz) or with each clock mapped onto the reference's range by its normalised position on a log
// scale (ClockMapping::kNormalised: the new grid's lowest GPU clock onto the reference's lowest,
// its highest onto the highest, log-linear between; cores stay as they are). The multipliers then
// absorb what differs between the boards.
#pragma once

#include <Eigen/Dense>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_predictor.h"
#include "analysis/reference_model.h"

namespace jetchar::analysis {

enum class ClockMapping { kAbsolute, kNormalised };

std::string_view to_string(ClockMapping mapping);
/// "absolute" or "normalised"; throws std::invalid_argument naming the valid ones.
ClockMapping parse_clock_mapping(std::string_view text);

struct TransferOptions {
  double level = 0.9;  ///< coverage the intervals aim at, in (0, 1)
  ClockMapping mapping = ClockMapping::kAbsolute;
  /// For kNormalised: the new board kind's modes whose clock ranges map onto the reference's
  /// (the profiled modes are added to them).
  std::vector<PowerMode> target_modes;
  /// Compare with the workload's own mode predictor by leave-one-out error (see the header).
  bool compare_with_own = true;
};

class TransferPredictor {
 public:
  /// Fits the multipliers of `profiled` (points of one workload; only the mode varies) on
  /// `reference`. Power is predicted when the reference has a power model and at least 2 profiled
  /// modes have a power. Throws std::invalid_argument when fewer than 2 modes are given, a mode
  /// lacks a knob, a time is not positive, the points mix workloads or the level is outside (0, 1).
  static TransferPredictor fit(const ReferenceModel& reference, std::span<const ConfigPoint> profiled,
                               const TransferOptions& options = {});

  ModePrediction predict(const PowerMode& mode) const;

  const ReferenceModel& reference() const { return reference_; }
  /// False when the workload's own mode predictor had the lower leave-one-out error and predicts.
  bool adapted() const { return !own_; }
  /// The workload's own predictor, when it was chosen over the transfer.
  const std::optional<ModePredictor>& own() const { return own_; }
  ClockMapping mapping() const { return mapping_; }
  /// The prior weights chosen by leave-one-out error.
  double time_prior() const { return time_prior_; }
  std::optional<double> power_prior() const { return power_prior_; }
  /// The fitted time multipliers s0..s4 and power multipliers r0..r4 (see the header comment).
  std::array<double, 5> time_scales() const;
  std::optional<std::array<double, 5>> power_scales() const;
  /// Leave-one-out MAPE (%) on the profiled modes at the chosen priors.
  double loo_time_mape() const { return own_ ? own_->loo_time_mape() : loo_time_mape_; }
  std::optional<double> loo_power_mape() const { return own_ ? own_->loo_power_mape() : loo_power_mape_; }
  std::optional<double> loo_energy_mape() const { return own_ ? own_->loo_energy_mape() : loo_energy_mape_; }
  std::size_t profiled() const { return profiled_; }
  double level() const { return level_; }

  /// One set of multipliers: log time scales u and power scales r.
  struct Scales {
    Eigen::VectorXd u;
    std::optional<Eigen::VectorXd> r;
  };

 private:
  ModeKnobs mapped(const PowerMode& mode) const;
  void choose_own(std::span<const ConfigPoint> profiled);

  ReferenceModel reference_;
  ClockMapping mapping_ = ClockMapping::kAbsolute;
  std::array<double, 4> from_low_{}, from_high_{};  ///< the new grid's knob ranges (kNormalised)
  double level_ = 0.9;
  std::size_t profiled_ = 0;
  double time_prior_ = 0;
  std::optional<double> power_prior_;
  Scales full_;
  std::vector<Scales> folds_;  ///< one per fold, fitted without it
  std::vector<std::size_t> fold_of_;
  std::vector<std::size_t> powered_;  ///< the profiled modes with a power
  std::vector<double> time_residual_, power_residual_, energy_residual_;
  double loo_time_mape_ = 0;
  std::optional<double> loo_power_mape_, loo_energy_mape_;
  std::optional<ModePredictor> own_;
};

}  // namespace jetchar::analysis
