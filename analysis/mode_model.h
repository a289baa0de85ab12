// Physically constrained models of one workload's epoch time and average power as functions of
// the power mode (online CPU cores c and the CPU, GPU and EMC clocks f, g, m in GHz). Every work
// coefficient is positive (fitted as its logarithm), so time falls and power rises monotonically
// with each clock, whatever the data.
//
// Time: per-resource terms  A = a/g (GPU kernels), B = b/m (DRAM traffic),
//       C = (e1 + e2/c)·((1 − σ)/f + σ/m) (CPU launch/dispatch: a serial and a parallel part,
//       Amdahl in the cores; the share σ of it waits on DRAM, code that misses its caches: fitted
//       from 0.05, a prior holding it at 0 unless the EMC clock moves the CPU's time), d (fixed),
//       combined as
//   sum         t = d + A + B + C                                 (nothing overlaps)
//   overlap     t = d + C + ‖(A, B)‖_p                            (GPU and DRAM overlap; p fitted)
//   overlap_all t = d + ‖(A, B, C)‖_p                             (asynchronous launches overlap too)
//   nested      t = d + ‖(C, ‖(A, B)‖_p)‖_q                       (two overlaps, p and q fitted)
//   saturating  nested, with the CPU's parallel part e2·(c⁻⁶ + k⁻⁶)^(1/6) in place of e2/c: cores
//               beyond a fitted k do not help (a launch thread, a fixed worker count)
//   power_law   t = t1·c^−γc·f^−γf·g^−γg·m^−γm, every γ ≥ 0 (least squares on log t): each clock
//               scales the whole epoch, as when every part of the work waits on every clock; its
//               parts are the time's elasticities (γf, γg, γm of t, the rest fixed), which are the
//               terms' shares of t for a sum of per-resource terms
// where ‖x‖_p = (Σ x_i^p)^(1/p), p ≥ 1: p = 1 is a sum, p → ∞ a max (a roofline). Fitted by
// Levenberg–Marquardt on relative (log) residuals, from several starts; the power law by NNLS.
//
// Power: P = P0 + c·L + Σ_r dyn_r, with each rail's dynamic power f·V(f)² for an unknown V/f
// curve, i.e. a non-negative combination of f, f², f³ (V = v0 + v1·f, expanded), fitted by
// non-negative least squares on relative residuals:
//   polynomial  dyn_r = α_r1·f_r + α_r2·f_r² + α_r3·f_r³ (CPU terms × c)
//   voltage     P0 + c·L0 + c·L1·V_c + (β1·c + β2·u(c) + β3·w)·f·V_c(f)² + (β4·ug + β5·um)·g·V_g(g)²
//               + (β6 + β7·um)·m·V_m(m)², with V_r = 1 + s_r·(f_r above the knee k_r), a
//               normalised V/f curve: flat to a knee, then a line, smoothed over 50 MHz (slopes
//               fitted, knees for the CPU and GPU, the EMC's a line); leakage per online core
//               rising with V_c; CPU switching power from every online core at its clock, from
//               u(c) = min(c, k) busy cores (soft minimum, k fitted from power: launch threads
//               spin on their cores whatever the Amdahl fit of time says) and from
//               w = (e1 + e2)·((1 − σ)/f + σ/m)/t, the core-seconds worked per second; the GPU's
//               from its busy share ug = A/t and from the DRAM busy share um = B/t (a GPU at its
//               clock while its kernels stall on DRAM; β5 ridged towards 0, so it is taken only
//               where the data need it); the EMC's from refresh and the controller (always) and
//               its busy share.
//               6 shape parameters (s_c, s_g, s_m, k, k_c, k_g) by Levenberg–Marquardt,
//               10 coefficients by NNLS
//   clocked     voltage with the GPU's term β4·(1 − w + w·ug)·g·V_g(g)² and β5 = 0, w ∈ (0, 1) a
//               seventh shape parameter: a GPU whose clock tree draws while it waits for launches
//               or DRAM
//   activity    polynomial plus the same terms weighted by each resource's busy share of the
//               epoch from the time model (A/t, B/t, C/t): a GPU that waits for launches draws less.
//   power_law   P = P1·c^γc·f^γf·g^γg·m^γm, every γ ≥ 0 (least squares on log P): no rail adds to
//               another, every clock scales the whole draw (e.g. a regulator or a governor that
//               moves the rails together), which no sum of per-rail terms can follow.
#pragma once

#include <Eigen/Dense>

#include <array>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

struct ModeKnobs {
  double cores = 0, cpu_ghz = 0, gpu_ghz = 0, emc_ghz = 0;
  /// Throws std::invalid_argument naming the mode when a knob is missing or not positive.
  static ModeKnobs of(const PowerMode& mode);
  auto operator<=>(const ModeKnobs&) const = default;
};

/// Each mode's knobs (cores, CPU, GPU, EMC) on a log scale, each scaled to [0, 1] over `modes`:
/// the space in which profiling designs measure how far apart two modes are. Throws as
/// ModeKnobs::of does.
std::vector<std::array<double, 4>> normalised_log_knobs(std::span<const PowerMode> modes);

enum class TimeForm { kSum, kOverlap, kOverlapAll, kNested, kSaturating, kPowerLaw };
enum class PowerForm { kVoltage, kClocked, kPolynomial, kActivity, kPowerLaw };

std::string_view to_string(TimeForm form);
std::string_view to_string(PowerForm form);
const std::vector<TimeForm>& all_time_forms();
const std::vector<PowerForm>& all_power_forms();
/// Parameters of the time form (its work coefficients, overlap exponents and GPU clock exponent;
/// not σ, the CPU's DRAM share, which a prior holds at 0 unless the data need it).
std::size_t parameter_count(TimeForm form);
/// Coefficients of the power form.
std::size_t parameter_count(PowerForm form);

/// The per-resource times of a mode under a fitted time model.
struct ResourceTimes {
  double gpu_s = 0, mem_s = 0, cpu_s = 0, fixed_s = 0, total_s = 0;
};

/// The GPU, DRAM and CPU times combined as `form` combines them (the overlap exponents p, q are
/// ignored by the forms without them); the fixed time is not included.
double combine_times(TimeForm form, double gpu_s, double mem_s, double cpu_s, double p, double q);

class TimeModel {
 public:
  /// Fits `form` to the measured times (> 0) of `modes`. Throws std::invalid_argument when sizes
  /// differ, a time is not positive, or there are fewer than 2 modes (weak priors on the
  /// parameters keep fewer modes than parameters determined). With `from` (a fit of the same form
  /// on nearly the same modes: the fit on every profiled mode, for a fit leaving one out) the
  /// nonlinear fit runs from one of its starts only, the one whose fit ended best in `from`: one
  /// start in place of six or twelve. The start is this fit's own (computed from its modes), not
  /// `from`'s optimum: a fit started beside the optimum of all modes stays near it where the
  /// cost is flat, so it would remember the mode it left out, and its left-out errors, the form's
  /// choice and the intervals would be too optimistic.
  static TimeModel fit(TimeForm form, std::span<const ModeKnobs> modes, std::span<const double> time_s,
                       const TimeModel* from = nullptr);

  TimeForm form() const { return form_; }
  ResourceTimes parts(const ModeKnobs& mode) const;
  double time_s(const ModeKnobs& mode) const { return parts(mode).total_s; }
  /// Core-seconds of CPU work in an epoch at `mode`: (e1 + e2)·((1 − σ)/f + σ/m), the serial part
  /// on one core and the parallel part spread over the cores; for the power law, its CPU part.
  double cpu_core_seconds(const ModeKnobs& mode) const;
  /// The physical forms' (every form but the power law's) work coefficients d, a, b, e1, e2
  /// (seconds, s·GHz) and overlap exponents p, q (1 if unused).
  double fixed_s() const, gpu_work() const, mem_work() const, cpu_serial_work() const, cpu_parallel_work() const;
  double overlap_p() const, overlap_q() const;
  /// α of the GPU time a/g^α, in (0.2, 1.2): 1 where the GPU time scales as its clock's period
  /// (the power law's γg).
  double gpu_clock_exponent() const;
  /// σ, the share of the CPU's work that waits on DRAM (physical forms; 0 for the power law), and
  /// the seconds one s·GHz of CPU work takes at `mode`: (1 − σ)/f + σ/m.
  double cpu_memory_share() const;
  double cpu_seconds_per_work(const ModeKnobs& mode) const;
  /// How many times faster the CPU term runs on `cores` than on one (Amdahl, with the core limit;
  /// physical forms).
  double cpu_speedup(double cores) const;

 private:
  TimeForm form_ = TimeForm::kSum;
  /// log d, log a, log b, log e1, log e2, log(p−1), log(q−1), log k, logit(α − 0.2), logit σ; for
  /// the power law log t1, γc, γf, γg, γm.
  Eigen::VectorXd theta_;
  std::size_t best_start_ = 0;  ///< which of the fit's starts ended in theta_
};

class PowerModel {
 public:
  /// Fits `form` to the measured average powers (> 0); the activity form needs `time` (the time
  /// model of the same modes). Throws std::invalid_argument when sizes differ, a power is
  /// not positive or no mode is given. With `from`, the voltage forms' shape fit runs from the one
  /// start that ended best in `from`, as TimeModel::fit's does (the linear forms ignore it).
  static PowerModel fit(PowerForm form, std::span<const ModeKnobs> modes, std::span<const double> power_w,
                        const TimeModel* time, const PowerModel* from = nullptr);

  PowerForm form() const { return form_; }
  double power_w(const ModeKnobs& mode) const;
  const Eigen::VectorXd& coefficients() const { return coefficients_; }

 private:
  PowerForm form_ = PowerForm::kPolynomial;
  Eigen::VectorXd coefficients_;
  std::optional<Eigen::VectorXd> shape_;  ///< the voltage form's V/f slopes and busy-core limit
  std::size_t best_start_ = 0;            ///< which of the shape fit's starts ended in shape_
  std::optional<TimeModel> time_;
};

}  // namespace jetchar::analysis
