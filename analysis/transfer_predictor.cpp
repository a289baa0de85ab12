#include "analysis/transfer_predictor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/jackknife_plus.h"
#include "analysis/nnls.h"
#include "analysis/nonlinear_least_squares.h"

namespace jetchar::analysis {
namespace {

// Strongest first, so that ties go to the prior closest to the reference.
constexpr std::array<double, 6> kPriorWeights = {10, 3, 1, 0.3, 0.1, 0.03};
constexpr Eigen::Index kTerms = 5;
constexpr std::size_t kMaxLeaveOneOut = 40, kFolds = 20;

ReferenceTimeTerms scaled(const ReferenceTimeTerms& t, const Eigen::VectorXd& u) {
  auto s = [&](Eigen::Index j) { return std::exp(std::clamp(u(j), -30.0, 30.0)); };
  return {s(0) * t.fixed_s, s(1) * t.gpu_s, s(2) * t.mem_s, s(3) * t.cpu_serial_s, s(4) * t.cpu_parallel_s};
}

double time_of(const ReferenceModel& ref, const ReferenceTimeTerms& terms) {
  const TimeModel& m = ref.time_model();
  return combine_time_terms(m.form(), m.overlap_p(), m.overlap_q(), terms);
}

// The reference's five power terms at `k`, with the busy shares of the workload whose log time
// scales are `u`.
Eigen::RowVectorXd power_row(const ReferenceModel& ref, const ModeKnobs& k, const ReferenceTimeTerms& terms,
                             const Eigen::VectorXd& u) {
  const ReferenceTimeTerms t = scaled(terms, u);
  const ReferencePowerTerms p = ref.power_terms(k, busy_shares(t, time_of(ref, t)));
  Eigen::RowVectorXd row(kTerms);
  row << p.base_w, p.leakage_w, p.cpu_w, p.gpu_w, p.emc_w;
  return row;
}

// Rows w·(e_j − 1/5): the multipliers' deviations from their mean.
Eigen::MatrixXd spread_penalty(double weight) {
  return weight * (Eigen::MatrixXd::Identity(kTerms, kTerms) -
                   Eigen::MatrixXd::Constant(kTerms, kTerms, 1.0 / static_cast<double>(kTerms)));
}

Eigen::VectorXd fit_time(const ReferenceModel& ref, const std::vector<ReferenceTimeTerms>& terms,
                         const std::vector<double>& times, double weight) {
  const auto n = static_cast<Eigen::Index>(times.size());
  std::vector<double> log_ratio;
  for (std::size_t i = 0; i < times.size(); ++i) log_ratio.push_back(std::log(times[i] / time_of(ref, terms[i])));
  std::nth_element(log_ratio.begin(), log_ratio.begin() + static_cast<std::ptrdiff_t>(log_ratio.size() / 2),
                   log_ratio.end());
  const Eigen::VectorXd start = Eigen::VectorXd::Constant(kTerms, log_ratio[log_ratio.size() / 2]);
  const Eigen::MatrixXd penalty = spread_penalty(weight);
  auto residuals = [&](const Eigen::VectorXd& u, Eigen::VectorXd& r) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto s = static_cast<std::size_t>(i);
      r(i) = std::log(time_of(ref, scaled(terms[s], u))) - std::log(times[s]);
    }
    r.tail(kTerms) = penalty * u;
  };
  return minimise_least_squares(residuals, n + kTerms, start).theta;
}

Eigen::VectorXd fit_power(const Eigen::MatrixXd& rows, const Eigen::VectorXd& power, double weight) {
  const Eigen::Index n = rows.rows();
  Eigen::MatrixXd a(n + kTerms, kTerms);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n + kTerms);
  for (Eigen::Index i = 0; i < n; ++i) a.row(i) = rows.row(i) / power(i), b(i) = 1;
  a.bottomRows(kTerms) = spread_penalty(weight);
  return nnls(a, b).x;
}

double mean_abs_relative(const std::vector<double>& log_residuals) {
  double s = 0;
  for (double r : log_residuals) s += std::abs(std::expm1(r));
  return 100 * s / static_cast<double>(log_residuals.size());
}

// The strongest prior whose leave-one-out error is within 2 % of the least.
std::size_t pick(const std::vector<double>& mape) {
  const double best = *std::min_element(mape.begin(), mape.end());
  std::size_t i = 0;
  while (mape[i] > best * 1.02 + 1e-12) ++i;
  return i;
}

std::array<double, 4> knob_array(const ModeKnobs& k) { return {k.cores, k.cpu_ghz, k.gpu_ghz, k.emc_ghz}; }

}  // namespace

std::string_view to_string(ClockMapping mapping) {
  return mapping == ClockMapping::kAbsolute ? "absolute" : "normalised";
}

ClockMapping parse_clock_mapping(std::string_view text) {
  if (text == "absolute") return ClockMapping::kAbsolute;
  if (text == "normalised") return ClockMapping::kNormalised;
  throw std::invalid_argument(fmt::format("clock mapping '{}' is not one of absolute, normalised", text));
}

ModeKnobs TransferPredictor::mapped(const PowerMode& mode) const {
  ModeKnobs k = ModeKnobs::of(mode);
  if (mapping_ == ClockMapping::kAbsolute) return k;
  std::array<double, 4> v = knob_array(k);
  // Clocks only (d = 1..3): a core count is a count on every board.
  for (std::size_t d = 1; d < 4; ++d) {
    const double lo = reference_.knob_low()[d], hi = reference_.knob_high()[d];
    if (!(from_high_[d] > from_low_[d]) || !(hi > lo)) continue;
    const double position = std::log(v[d] / from_low_[d]) / std::log(from_high_[d] / from_low_[d]);
    v[d] = lo * std::pow(hi / lo, position);
  }
  return {v[0], v[1], v[2], v[3]};
}

TransferPredictor TransferPredictor::fit(const ReferenceModel& reference, std::span<const ConfigPoint> profiled,
                                         const TransferOptions& options) {
  if (!(options.level > 0 && options.level < 1)) {
    throw std::invalid_argument(fmt::format("interval level {} is outside (0, 1)", options.level));
  }
  if (profiled.size() < 2) {
    throw std::invalid_argument(
        fmt::format("a transfer from reference '{}' needs at least 2 profiled modes of the new workload; got {}",
                    reference.workload(), profiled.size()));
  }
  for (const ConfigPoint& p : profiled) {
    if (p.key.workload != profiled.front().key.workload) {
      throw std::invalid_argument(fmt::format("a transfer adapts one workload; got '{}' and '{}'",
                                              profiled.front().key.workload, p.key.workload));
    }
  }
  TransferPredictor out;
  out.reference_ = reference;
  out.mapping_ = options.mapping;
  out.level_ = options.level;
  const std::size_t n = profiled.size();
  out.profiled_ = n;
  out.from_low_.fill(std::numeric_limits<double>::infinity());
  out.from_high_.fill(0);
  auto widen = [&](const PowerMode& m) {
    const auto v = knob_array(ModeKnobs::of(m));
    for (std::size_t d = 0; d < 4; ++d) {
      out.from_low_[d] = std::min(out.from_low_[d], v[d]), out.from_high_[d] = std::max(out.from_high_[d], v[d]);
    }
  };
  for (const PowerMode& m : options.target_modes) widen(m);
  for (const ConfigPoint& p : profiled) widen(p.key.mode);

  std::vector<ModeKnobs> knobs;
  std::vector<ReferenceTimeTerms> terms;
  std::vector<double> times;
  for (const ConfigPoint& p : profiled) {
    if (!(p.time_s > 0) || !std::isfinite(p.time_s)) {
      throw std::invalid_argument(fmt::format("workload '{}': measured time {} s of mode {} is not a positive number",
                                              p.key.workload, p.time_s, p.key.mode.label()));
    }
    knobs.push_back(out.mapped(p.key.mode));
    terms.push_back(reference.time_terms(knobs.back()));
    times.push_back(p.time_s);
    if (p.power_w) {
      if (!(*p.power_w > 0) || !std::isfinite(*p.power_w)) {
        throw std::invalid_argument(
            fmt::format("workload '{}': measured power {} W of mode {} is not a positive number", p.key.workload,
                        *p.power_w, p.key.mode.label()));
      }
      out.powered_.push_back(out.fold_of_.size());
    }
    out.fold_of_.push_back(0);
  }
  const std::size_t folds = n <= kMaxLeaveOneOut ? n : kFolds;
  for (std::size_t i = 0; i < n; ++i) out.fold_of_[i] = i % folds;
  auto kept = [&](const auto& v, std::size_t fold) {
    std::remove_cvref_t<decltype(v)> train;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (out.fold_of_[i] != fold) train.push_back(v[i]);
    }
    return train;
  };

  // Time: every prior weight's left-out fits, the one with the least error (strongest on ties).
  std::vector<std::vector<Eigen::VectorXd>> time_folds(kPriorWeights.size());
  std::vector<std::vector<double>> time_resid(kPriorWeights.size());
  std::vector<double> time_mape;
  for (std::size_t w = 0; w < kPriorWeights.size(); ++w) {
    for (std::size_t k = 0; k < folds; ++k) {
      time_folds[w].push_back(fit_time(reference, kept(terms, k), kept(times, k), kPriorWeights[w]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      time_resid[w].push_back(std::log(times[i]) -
                              std::log(time_of(reference, scaled(terms[i], time_folds[w][out.fold_of_[i]]))));
    }
    time_mape.push_back(mean_abs_relative(time_resid[w]));
  }
  const std::size_t tw = pick(time_mape);
  out.time_prior_ = kPriorWeights[tw];
  out.loo_time_mape_ = time_mape[tw];
  out.full_.u = fit_time(reference, terms, times, out.time_prior_);
  for (std::size_t k = 0; k < folds; ++k) out.folds_.push_back({time_folds[tw][k], std::nullopt});
  for (double r : time_resid[tw]) out.time_residual_.push_back(std::abs(r));
  if (!reference.has_power() || out.powered_.size() < 2) {
    if (options.compare_with_own) out.choose_own(profiled);
    return out;
  }

  // Power: each fold's rows with that fold's time scales (the new workload's busy shares).
  const auto np = static_cast<Eigen::Index>(out.powered_.size());
  Eigen::VectorXd power(np);
  for (Eigen::Index r = 0; r < np; ++r) power(r) = *profiled[out.powered_[static_cast<std::size_t>(r)]].power_w;
  auto rows_for = [&](const Eigen::VectorXd& u, std::optional<std::size_t> without) {
    std::vector<Eigen::Index> picked;
    for (Eigen::Index r = 0; r < np; ++r) {
      if (!without || out.fold_of_[out.powered_[static_cast<std::size_t>(r)]] != *without) picked.push_back(r);
    }
    if (picked.empty()) {  // only when every powered mode is in this fold
      for (Eigen::Index r = 0; r < np; ++r) picked.push_back(r);
    }
    Eigen::MatrixXd x(static_cast<Eigen::Index>(picked.size()), kTerms);
    Eigen::VectorXd y(x.rows());
    for (Eigen::Index j = 0; j < x.rows(); ++j) {
      const std::size_t i = out.powered_[static_cast<std::size_t>(picked[static_cast<std::size_t>(j)])];
      x.row(j) = power_row(reference, knobs[i], terms[i], u);
      y(j) = power(picked[static_cast<std::size_t>(j)]);
    }
    return std::pair{x, y};
  };
  std::vector<std::vector<Eigen::VectorXd>> power_folds(kPriorWeights.size());
  std::vector<std::vector<double>> power_resid(kPriorWeights.size());
  std::vector<double> power_mape;
  for (std::size_t w = 0; w < kPriorWeights.size(); ++w) {
    for (std::size_t k = 0; k < folds; ++k) {
      auto [x, y] = rows_for(out.folds_[k].u, k);
      power_folds[w].push_back(fit_power(x, y, kPriorWeights[w]));
    }
    for (Eigen::Index r = 0; r < np; ++r) {
      const std::size_t i = out.powered_[static_cast<std::size_t>(r)], k = out.fold_of_[i];
      const double p = power_row(reference, knobs[i], terms[i], out.folds_[k].u).dot(power_folds[w][k]);
      power_resid[w].push_back(std::log(power(r)) - std::log(std::max(p, 1e-12)));
    }
    power_mape.push_back(mean_abs_relative(power_resid[w]));
  }
  const std::size_t pw = pick(power_mape);
  out.power_prior_ = kPriorWeights[pw];
  out.loo_power_mape_ = power_mape[pw];
  auto [x, y] = rows_for(out.full_.u, std::nullopt);
  out.full_.r = fit_power(x, y, *out.power_prior_);
  for (std::size_t k = 0; k < folds; ++k) out.folds_[k].r = power_folds[pw][k];
  std::vector<double> energy_log;
  for (Eigen::Index r = 0; r < np; ++r) {
    const std::size_t i = out.powered_[static_cast<std::size_t>(r)], k = out.fold_of_[i];
    out.power_residual_.push_back(std::abs(power_resid[pw][static_cast<std::size_t>(r)]));
    const double measured = profiled[i].energy_j.value_or(power(r) * times[i]);
    const ReferenceTimeTerms t = scaled(terms[i], out.folds_[k].u);
    const double predicted =
        time_of(reference, t) * power_row(reference, knobs[i], terms[i], out.folds_[k].u).dot(*out.folds_[k].r);
    energy_log.push_back(std::log(measured) - std::log(std::max(predicted, 1e-12)));
    out.energy_residual_.push_back(std::abs(energy_log.back()));
  }
  out.loo_energy_mape_ = mean_abs_relative(energy_log);
  if (options.compare_with_own) out.choose_own(profiled);
  return out;
}

void TransferPredictor::choose_own(std::span<const ConfigPoint> profiled) {
  constexpr std::size_t kLeastModes = 8;  // see the header
  if (profiled.size() < kLeastModes) return;
  ModePredictorOptions options;
  options.level = level_;
  ModePredictor own = ModePredictor::fit(profiled, options);
  // Time plus power where both predict power, else time alone.
  const bool both = loo_power_mape_ && own.loo_power_mape();
  const double mine = loo_time_mape_ + (both ? *loo_power_mape_ : 0);
  const double theirs = own.loo_time_mape() + (both ? *own.loo_power_mape() : 0);
  if (theirs < mine && (both || !loo_power_mape_)) own_ = std::move(own);
}

ModePrediction TransferPredictor::predict(const PowerMode& mode) const {
  if (own_) return own_->predict(mode);
  const ModeKnobs k = mapped(mode);
  const ReferenceTimeTerms terms = reference_.time_terms(k);
  auto time = [&](const Scales& s) { return time_of(reference_, scaled(terms, s.u)); };
  auto power = [&](const Scales& s) { return std::max(power_row(reference_, k, terms, s.u).dot(*s.r), 1e-12); };
  std::vector<double> fold_t, t_log;
  for (const Scales& s : folds_) fold_t.push_back(std::log(time(s)));
  for (std::size_t i = 0; i < fold_of_.size(); ++i) t_log.push_back(fold_t[fold_of_[i]]);
  ModePrediction out;
  const double t = time(full_);
  out.time_s = jackknife_plus(t, t_log, time_residual_, level_);
  if (!full_.r) return out;
  std::vector<double> p_log, e_log;
  for (std::size_t i : powered_) {
    const Scales& s = folds_[fold_of_[i]];
    p_log.push_back(std::log(power(s)));
    e_log.push_back(p_log.back() + fold_t[fold_of_[i]]);
  }
  const double p = power(full_);
  out.power_w = jackknife_plus(p, p_log, power_residual_, level_);
  out.energy_j = jackknife_plus(p * t, e_log, energy_residual_, level_);
  return out;
}

std::array<double, 5> TransferPredictor::time_scales() const {
  std::array<double, 5> s{};
  for (std::size_t j = 0; j < 5; ++j) s[j] = std::exp(full_.u(static_cast<Eigen::Index>(j)));
  return s;
}

std::optional<std::array<double, 5>> TransferPredictor::power_scales() const {
  if (!full_.r) return std::nullopt;
  std::array<double, 5> s{};
  for (std::size_t j = 0; j < 5; ++j) s[j] = (*full_.r)(static_cast<Eigen::Index>(j));
  return s;
}

}  // namespace jetchar::analysis
