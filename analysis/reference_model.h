// A reference workload's model of time and power over the power modes, fitted once on many modes
// of one board kind, for other workloads to adapt from a handful of their own
// (analysis/transfer_predictor.h; PowerTrain's idea, Gupta et al., FGCS 2024).
//
// Time: the physical forms of analysis/mode_model.h (not the power law: it has no terms to
// rescale). Each form is fitted on half of the reference's modes and scored on the other half; the
// least held-out MAPE wins, a simpler form on ties within 2 % (as the mode predictor chooses). The
// winner is refitted on every mode. At most 240 modes, a seeded random subset of a larger sweep, go
// into the fits: enough to pin 8 parameters, and a 1,440-mode reference fits in seconds.
//
// Power: the board's response to each clock, split by rail, with the workload's activity:
//   P = b0 + b1·c + c·(b2·f + b3·f² + b4·f³) + uc·(b5·f + b6·f² + b7·f³)      base, leakage, CPU
//         + (b8·g + b9·g² + b10·g³) + ug·(b11·g + b12·g² + b13·g³)            GPU
//         + (b14·m + b15·m² + b16·m³) + um·(b17·m + b18·m² + b19·m³)          EMC
// with c cores, f, g, m the CPU, GPU and EMC clocks (GHz) and uc, ug, um each resource's busy share
// of the epoch from the time model (its term over the total). f·V(f)² for an unknown V/f line is
// a non-negative combination of f, f², f³, so every b ≥ 0 (non-negative least squares on relative
// residuals over every reference mode with a power). The split keeps what the board owns (the
// V/f response of each rail) apart from what the workload owns (how busy each resource is), which
// is what a transfer changes.
#pragma once

#include <Eigen/Dense>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "analysis/config_point.h"
#include "analysis/mode_model.h"

namespace jetchar::analysis {

/// The reference's time split into the terms a transfer rescales.
struct ReferenceTimeTerms {
  double fixed_s = 0, gpu_s = 0, mem_s = 0, cpu_serial_s = 0, cpu_parallel_s = 0;
};

/// Each rail's part of the reference's power at a mode, for given busy shares.
struct ReferencePowerTerms {
  double base_w = 0, leakage_w = 0, cpu_w = 0, gpu_w = 0, emc_w = 0;
  double total() const { return base_w + leakage_w + cpu_w + gpu_w + emc_w; }
};

/// Busy shares of the CPU, GPU and memory terms (each term over the epoch time).
struct BusyShares {
  double cpu = 0, gpu = 0, mem = 0;
};

class ReferenceModel {
 public:
  /// The fewest modes a reference may have: it is profiled widely, once per board kind.
  static constexpr std::size_t kMinModes = 10;

  /// Fits on `points` of one workload (only the mode varies). Throws std::invalid_argument naming
  /// the workload when points of several workloads are mixed, when fewer than kMinModes modes are
  /// given, or when a mode lacks a knob or a time is not positive. Power is modelled when at least
  /// kMinModes points have one.
  static ReferenceModel fit(std::span<const ConfigPoint> points);

  const std::string& workload() const { return workload_; }
  std::size_t modes() const { return modes_; }
  const TimeModel& time_model() const { return time_; }
  bool has_power() const { return power_.has_value(); }
  /// Held-out MAPE (%) of the chosen time form (fitted on half of the modes), and the power
  /// model's MAPE on every reference mode.
  double time_mape() const { return time_mape_; }
  std::optional<double> power_mape() const { return power_mape_; }
  /// Lowest and highest cores, CPU, GPU and EMC clocks among the reference's modes.
  const std::array<double, 4>& knob_low() const { return low_; }
  const std::array<double, 4>& knob_high() const { return high_; }

  ReferenceTimeTerms time_terms(const ModeKnobs& mode) const;
  /// The power terms at `mode` for busy shares `busy` (the reference's own or another workload's).
  /// Requires has_power().
  ReferencePowerTerms power_terms(const ModeKnobs& mode, const BusyShares& busy) const;
  double time_s(const ModeKnobs& mode) const;
  /// The reference's own power (its busy shares from its time model). Requires has_power().
  double power_w(const ModeKnobs& mode) const;

 private:
  std::string workload_;
  std::size_t modes_ = 0;
  TimeModel time_;
  double time_mape_ = 0;
  std::optional<Eigen::VectorXd> power_;
  std::optional<double> power_mape_;
  std::array<double, 4> low_{}, high_{};
};

/// Combines rescaled time terms the way `form` combines its resource terms (analysis/mode_model.h)
/// with overlap exponents p and q.
double combine_time_terms(TimeForm form, double p, double q, const ReferenceTimeTerms& terms);

/// Busy shares of a split epoch: each resource term over `total_s`.
BusyShares busy_shares(const ReferenceTimeTerms& terms, double total_s);

}  // namespace jetchar::analysis
