#include "analysis/mode_transfer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/stacking.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

// The weak prior on the exponent: as one extra observation "b = 1" of this weight against
// residuals of unit weight, so that two modes that differ little still give a bounded fit.
constexpr double kExponentPrior = 0.3;

// Least squares of y = a + b·x with the prior row kExponentPrior·(b − 1), in closed form.
TransferFit fit_log_affine(const std::vector<double>& x, const std::vector<double>& y) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  const double w = kExponentPrior * kExponentPrior;
  // Normal equations: [n sx; sx sxx + w] [a; b] = [sy; sxy + w].
  const double det = n * (sxx + w) - sx * sx;
  TransferFit f;
  f.exponent = (n * (sxy + w) - sx * sy) / det;
  f.offset = (sy - f.exponent * sx) / n;
  return f;
}

double apply(const TransferFit& f, double log_ref) { return f.offset + f.exponent * log_ref; }

double order_statistic(std::vector<double> v, double rank) {
  std::sort(v.begin(), v.end());
  auto k = static_cast<std::ptrdiff_t>(std::ceil(rank - 1e-9));
  k = std::clamp<std::ptrdiff_t>(k, 1, static_cast<std::ptrdiff_t>(v.size()));
  return v[static_cast<std::size_t>(k - 1)];
}

// Jackknife+ on a log scale (as analysis/mode_predictor.cpp), widened by the left-out fits'
// jackknife spread at x added in quadrature to the residuals' level-quantile.
Interval interval(double full_log, const std::vector<double>& loo_log, const std::vector<double>& residual,
                  double level) {
  const auto n = static_cast<double>(loo_log.size());
  const double alpha = 1 - level;
  std::vector<double> lo, hi;
  double mean = 0;
  for (std::size_t i = 0; i < loo_log.size(); ++i) {
    lo.push_back(loo_log[i] - residual[i]);
    hi.push_back(loo_log[i] + residual[i]);
    mean += loo_log[i] / n;
  }
  double ss = 0;
  for (double v : loo_log) ss += (v - mean) * (v - mean);
  const double noise = order_statistic(residual, std::ceil(level * (n + 1)));
  const double zl = normal_quantile((1 + level) / 2);
  const double half = std::sqrt(noise * noise + zl * zl * (n - 1) / n * ss);
  Interval out;
  out.value = std::exp(full_log);
  out.low = std::min({out.value, std::exp(order_statistic(lo, std::max(1.0, std::floor(alpha * (n + 1))))),
                      std::exp(full_log - half)});
  out.high = std::max({out.value, std::exp(order_statistic(hi, std::ceil((1 - alpha) * (n + 1)))),
                       std::exp(full_log + half)});
  return out;
}

double mape_of(const std::vector<double>& log_residual) {
  double s = 0;
  for (double r : log_residual) s += std::abs(std::expm1(r));
  return 100 * s / static_cast<double>(log_residual.size());
}

}  // namespace

// The prior weight per log parameter of a refitted time model: strong enough that 2-5 modes move
// only the works they see.
constexpr double kRefitPrior = 0.05;

ModeTransfer ModeTransfer::fit(const ModePredictor& reference, std::span<const ConfigPoint> profiled, double level) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument(fmt::format("interval level {} is outside (0, 1)", level));
  if (profiled.size() < 2) {
    throw std::invalid_argument(
        fmt::format("transferring a reference needs at least 2 profiled modes of the new workload; got {}", profiled.size()));
  }
  ModeTransfer out;
  out.reference_ = reference;
  out.level_ = level;
  out.profiled_ = profiled.size();
  const std::size_t n = profiled.size();
  std::vector<double> xt, yt, xp, yp;
  std::vector<ModeKnobs> knobs;
  for (std::size_t i = 0; i < n; ++i) {
    const ConfigPoint& p = profiled[i];
    if (!(p.time_s > 0) || !std::isfinite(p.time_s)) {
      throw std::invalid_argument(fmt::format("transfer: measured time {} s of mode '{}' is not a positive number", p.time_s,
                                              p.key.mode.label()));
    }
    ModePrediction ref = reference.predict(p.key.mode);  // throws naming a mode without a knob
    knobs.push_back(ModeKnobs::of(p.key.mode));
    xt.push_back(std::log(ref.time_s.value));
    yt.push_back(std::log(p.time_s));
    if (ref.power_w && p.power_w && *p.power_w > 0 && std::isfinite(*p.power_w)) {
      out.power_points_.push_back(i);
      xp.push_back(std::log(ref.power_w->value));
      yp.push_back(std::log(*p.power_w));
    }
  }
  if (out.power_points_.size() < 2) out.power_points_.clear(), xp.clear(), yp.clear();
  const bool power = !out.power_points_.empty();
  auto without = [](const auto& v, std::size_t i) {
    std::remove_cvref_t<decltype(v)> kept;
    for (std::size_t j = 0; j < v.size(); ++j) {
      if (j != i) kept.push_back(v[j]);
    }
    return kept;
  };

  // scaled
  out.time_ = fit_log_affine(xt, yt);
  for (std::size_t i = 0; i < n; ++i) out.time_loo_.push_back(fit_log_affine(without(xt, i), without(yt, i)));
  std::vector<double> pw;
  std::vector<ModeKnobs> pk;
  for (std::size_t i : out.power_points_) pw.push_back(*profiled[i].power_w), pk.push_back(knobs[i]);
  std::vector<double> times;
  for (const ConfigPoint& p : profiled) times.push_back(p.time_s);
  // Power fits leaving profiled mode i out use the power points other than i.
  auto power_without = [&](std::size_t i, const auto& v) {
    std::remove_cvref_t<decltype(v)> kept;
    for (std::size_t r = 0; r < out.power_points_.size(); ++r) {
      if (out.power_points_[r] != i) kept.push_back(v[r]);
    }
    return kept;
  };
  if (power) {
    out.power_ = fit_log_affine(xp, yp);
    for (std::size_t i = 0; i < n; ++i) out.power_loo_.push_back(fit_log_affine(power_without(i, xp), power_without(i, yp)));
  }
  // refitted
  out.refit_time_ = TimeModel::refit(reference.time_model(), knobs, times, kRefitPrior);
  for (std::size_t i = 0; i < n; ++i) {
    out.refit_time_loo_.push_back(TimeModel::refit(reference.time_model(), without(knobs, i), without(times, i), kRefitPrior));
  }
  const PowerModel* ref_power = reference.power_model();
  if (power && ref_power) {
    out.refit_power_ = PowerModel::refit(*ref_power, pk, pw, &*out.refit_time_);
    for (std::size_t i = 0; i < n; ++i) {
      out.refit_power_loo_.push_back(PowerModel::refit(*ref_power, power_without(i, pk), power_without(i, pw),
                                                       &out.refit_time_loo_[i]));
    }
  }
  // own
  constexpr std::size_t kOwnFitFrom = 4, kOwnFitUpTo = 25;
  if (n >= kOwnFitFrom && n <= kOwnFitUpTo) {
    ModePredictorOptions options;
    options.level = level;
    out.own_ = ModePredictor::fit(profiled, options);
    const std::vector<ConfigPoint> all(profiled.begin(), profiled.end());
    for (std::size_t i = 0; i < n; ++i) out.own_loo_.push_back(ModePredictor::fit(without(all, i), options));
  }

  // Stacking by the leave-one-out log predictions at the profiled modes.
  std::vector<At> at_profiled;
  for (const ConfigPoint& p : profiled) at_profiled.push_back(out.at(p.key.mode));
  std::vector<std::vector<double>> t_cv(3), p_cv(3);
  for (std::size_t c = 0; c < 3; ++c) {
    if (c == 2 && !out.own_) continue;
    for (std::size_t i = 0; i < n; ++i) t_cv[c].push_back(out.log_time(c, at_profiled[i], i));
    if (!power || (c == 1 && !out.refit_power_)) continue;
    bool all = true;
    for (std::size_t i : out.power_points_) {
      const double lp = out.log_power(c, at_profiled[i], i);
      if (!std::isfinite(lp)) all = false;
      p_cv[c].push_back(lp);
    }
    if (!all) p_cv[c].clear();
  }
  auto tw = stacking_weights(t_cv, yt);
  std::copy(tw.begin(), tw.end(), out.time_weight_.begin());
  std::vector<double> t_stacked(n, 0.0), t_resid;
  for (std::size_t c = 0; c < 3; ++c) {
    for (std::size_t i = 0; i < n && out.time_weight_[c] > 0; ++i) t_stacked[i] += out.time_weight_[c] * t_cv[c][i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    t_resid.push_back(yt[i] - t_stacked[i]);
    out.time_residual_.push_back(std::abs(t_resid.back()));
  }
  out.loo_time_mape_ = mape_of(t_resid);
  if (power) {
    auto pwt = stacking_weights(p_cv, yp);
    std::copy(pwt.begin(), pwt.end(), out.power_weight_.begin());
    std::vector<double> p_resid;
    for (std::size_t r = 0; r < out.power_points_.size(); ++r) {
      const std::size_t i = out.power_points_[r];
      double lp = 0;
      for (std::size_t c = 0; c < 3; ++c) {
        if (out.power_weight_[c] > 0) lp += out.power_weight_[c] * p_cv[c][r];
      }
      p_resid.push_back(yp[r] - lp);
      out.power_residual_.push_back(std::abs(p_resid.back()));
      const ConfigPoint& p = profiled[i];
      const double measured = std::log(p.energy_j.value_or(*p.power_w * p.time_s));
      out.energy_residual_.push_back(std::abs(measured - t_stacked[i] - lp));
    }
    out.loo_power_mape_ = mape_of(p_resid);
  }
  return out;
}

ModeTransfer::At ModeTransfer::at(const PowerMode& mode) const {
  At x{mode, reference_.predict(mode), {}};
  if (own_) {
    x.own.push_back(own_->predict(mode));
    for (const ModePredictor& m : own_loo_) x.own.push_back(m.predict(mode));
  }
  return x;
}

double ModeTransfer::log_time(std::size_t candidate, const At& x, std::optional<std::size_t> fold) const {
  switch (candidate) {
    case 0: return apply(fold ? time_loo_[*fold] : time_, std::log(x.ref.time_s.value));
    case 1: return std::log((fold ? refit_time_loo_[*fold] : *refit_time_).time_s(ModeKnobs::of(x.mode)));
    default: return std::log(x.own[fold ? 1 + *fold : 0]->time_s.value);
  }
}

double ModeTransfer::log_power(std::size_t candidate, const At& x, std::optional<std::size_t> fold) const {
  switch (candidate) {
    case 0: return apply(fold ? power_loo_[*fold] : *power_, std::log(x.ref.power_w->value));
    case 1:
      return std::log(std::max((fold ? refit_power_loo_[*fold] : *refit_power_).power_w(ModeKnobs::of(x.mode)), 1e-12));
    default: {
      const auto& p = x.own[fold ? 1 + *fold : 0]->power_w;
      return p ? std::log(p->value) : std::numeric_limits<double>::quiet_NaN();
    }
  }
}

ModePrediction ModeTransfer::predict(const PowerMode& mode) const {
  const std::size_t n = profiled_;
  auto stacked = [&](const std::array<double, 3>& w, auto&& log_of, std::optional<std::size_t> fold) {
    double s = 0;
    for (std::size_t c = 0; c < 3; ++c) {
      if (w[c] > 0) s += w[c] * log_of(c, fold);
    }
    return s;
  };
  const At x = at(mode);
  auto lt = [&](std::size_t c, std::optional<std::size_t> f) { return log_time(c, x, f); };
  auto lp = [&](std::size_t c, std::optional<std::size_t> f) { return log_power(c, x, f); };
  std::vector<double> t_loo;
  for (std::size_t i = 0; i < n; ++i) t_loo.push_back(stacked(time_weight_, lt, i));
  const double full_t = stacked(time_weight_, lt, std::nullopt);
  ModePrediction out;
  out.time_s = interval(full_t, t_loo, time_residual_, level_);
  if (!power_points_.empty()) {
    std::vector<double> p_loo, e_loo;
    for (std::size_t i : power_points_) {
      p_loo.push_back(stacked(power_weight_, lp, i));
      e_loo.push_back(p_loo.back() + t_loo[i]);
    }
    const double full_p = stacked(power_weight_, lp, std::nullopt);
    out.power_w = interval(full_p, p_loo, power_residual_, level_);
    out.energy_j = interval(full_p + full_t, e_loo, energy_residual_, level_);
  }
  return out;
}

}  // namespace jetchar::analysis
