#include "analysis/mode_predictor.h"

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace jetchar::analysis {
namespace {

// The ⌈rank⌉-th smallest of `values` (1-based), clamped to the range.
double order_statistic(std::vector<double> values, double rank) {
  std::sort(values.begin(), values.end());
  auto k = static_cast<std::ptrdiff_t>(std::ceil(rank - 1e-9));
  k = std::clamp<std::ptrdiff_t>(k, 1, static_cast<std::ptrdiff_t>(values.size()));
  return values[static_cast<std::size_t>(k - 1)];
}

double jackknife_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const auto n = static_cast<double>(v.size());
  return std::sqrt((n - 1) / n * ss);
}

// Jackknife+ on a log scale; see the header. Where its upper rank exceeds n (n < level/(1 − level):
// fewer than 9 modes at 90 %) the exact jackknife+ interval is unbounded and the clamped one is the
// extreme left-out fits, which holds a new mode only about n/(n + 1) of the time; there it is widened
// to hold the Student-t predictive interval too (see the header).
Interval jackknife_plus(double full, const std::vector<double>& loo_log, const std::vector<double>& residual,
                        double level) {
  const auto n = static_cast<double>(loo_log.size());
  const double alpha = 1 - level;
  std::vector<double> lo, hi;
  for (std::size_t i = 0; i < loo_log.size(); ++i) {
    lo.push_back(loo_log[i] - residual[i]);
    hi.push_back(loo_log[i] + residual[i]);
  }
  const double low_rank = std::max(1.0, std::floor(alpha * (n + 1)));
  const double high_rank = std::ceil((1 - alpha) * (n + 1) - 1e-9);
  Interval out;
  out.value = full;
  out.low = std::min(full, std::exp(order_statistic(lo, low_rank)));
  out.high = std::max(full, std::exp(order_statistic(hi, high_rank)));
  if (high_rank > n) {
    double mean_square = 0;
    for (double r : residual) mean_square += r * r / n;
    const double spread = jackknife_sd(loo_log);
    const double half_width =
        boost::math::quantile(boost::math::students_t(n), 1 - alpha / 2) * std::sqrt(mean_square + spread * spread);
    out.low = std::min(out.low, full * std::exp(-half_width));
    out.high = std::max(out.high, full * std::exp(half_width));
  }
  return out;
}

double mean_abs_relative(const std::vector<double>& log_residuals) {
  double s = 0;
  for (double r : log_residuals) s += std::abs(std::expm1(r));
  return 100 * s / static_cast<double>(log_residuals.size());
}

template <typename Form>
std::size_t pick(const std::vector<Form>& forms, const std::vector<std::optional<double>>& mape) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& m : mape) {
    if (m) best = std::min(best, *m);
  }
  // Forms come simplest first: the first within 2 % of the best wins.
  for (std::size_t i = 0; i < forms.size(); ++i) {
    if (mape[i] && *mape[i] <= best * 1.02 + 1e-12) return i;
  }
  return forms.size();
}

}  // namespace

ModePredictor ModePredictor::fit(std::span<const ConfigPoint> profiled, const ModePredictorOptions& options) {
  if (!(options.level > 0 && options.level < 1)) {
    throw std::invalid_argument(fmt::format("interval level {} is outside (0, 1)", options.level));
  }
  if (profiled.size() < 3) {
    throw std::invalid_argument(
        fmt::format("the mode predictor needs at least 3 profiled modes; got {}", profiled.size()));
  }
  if (options.time_forms.empty()) throw std::invalid_argument("the mode predictor needs at least one time form");
  const std::size_t n = profiled.size();
  std::vector<ModeKnobs> knobs;
  std::vector<double> times;
  std::vector<std::size_t> with_power;
  for (std::size_t i = 0; i < n; ++i) {
    knobs.push_back(ModeKnobs::of(profiled[i].key.mode));
    times.push_back(profiled[i].time_s);
    if (profiled[i].power_w) with_power.push_back(i);
  }
  ModePredictor out;
  out.level_ = options.level;
  out.profiled_ = n;
  // Leave-one-out up to kMaxLeaveOneOut modes; beyond, kFolds interleaved folds (CV+, the K-fold
  // form of jackknife+ in the same paper), so that a predictor fitted on a whole sweep stays fast.
  constexpr std::size_t kMaxLeaveOneOut = 40, kFolds = 20;
  const std::size_t folds = n <= kMaxLeaveOneOut ? n : kFolds;
  out.fold_of_.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.fold_of_[i] = i % folds;
  auto training = [&](const auto& v, std::size_t fold, const std::vector<std::size_t>& index) {
    std::remove_cvref_t<decltype(v)> kept;
    for (std::size_t j = 0; j < index.size(); ++j) {
      if (out.fold_of_[index[j]] != fold) kept.push_back(v[j]);
    }
    return kept;
  };
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;

  // Time: cross-validation per form, simplest first.
  std::vector<TimeForm> forms = options.time_forms;
  std::sort(forms.begin(), forms.end(), [](TimeForm a, TimeForm b) { return parameter_count(a) < parameter_count(b); });
  std::vector<std::optional<double>> mape(forms.size());
  std::vector<std::vector<TimeModel>> fold_models(forms.size());
  std::vector<std::vector<double>> cv_residuals(forms.size());
  for (std::size_t f = 0; f < forms.size(); ++f) {
    // A form is judged only when each left-out fit has as many modes as parameters; the
    // simplest one always is, on its priors, so that a few modes still give a prediction.
    if (f > 0 && n - (n + folds - 1) / folds < parameter_count(forms[f])) continue;
    for (std::size_t k = 0; k < folds; ++k) {
      fold_models[f].push_back(TimeModel::fit(forms[f], training(knobs, k, all), training(times, k, all)));
    }
    std::vector<double> residuals;
    for (std::size_t i = 0; i < n; ++i) {
      residuals.push_back(std::log(times[i]) - std::log(fold_models[f][out.fold_of_[i]].time_s(knobs[i])));
    }
    mape[f] = mean_abs_relative(residuals);
    cv_residuals[f] = std::move(residuals);
  }
  for (std::size_t f = 0; f < forms.size(); ++f)
    out.time_scores_.push_back({std::string(to_string(forms[f])), mape[f]});
  std::size_t chosen = pick(forms, mape);
  if (chosen == forms.size()) {
    throw std::invalid_argument(fmt::format("{} profiled modes are too few for any of the time forms asked for", n));
  }
  out.time_form_ = forms[chosen];
  out.time_full_ = TimeModel::fit(out.time_form_, knobs, times);
  out.time_loo_ = std::move(fold_models[chosen]);
  out.loo_time_mape_ = *mape[chosen];
  for (double r : cv_residuals[chosen]) out.time_residual_.push_back(std::abs(r));

  // Power: the same folds over the modes with a power, each fold's fit with that fold's time fit.
  if (with_power.size() < 3 || options.power_forms.empty()) return out;
  std::vector<ModeKnobs> pk;
  std::vector<double> pw;
  for (std::size_t i : with_power) pk.push_back(knobs[i]), pw.push_back(*profiled[i].power_w);
  std::vector<std::optional<double>> pmape(options.power_forms.size());
  std::vector<std::vector<PowerModel>> pfold(options.power_forms.size());
  std::vector<std::vector<double>> presid(options.power_forms.size());
  for (std::size_t f = 0; f < options.power_forms.size(); ++f) {
    for (std::size_t k = 0; k < folds; ++k) {
      auto kk = training(pk, k, with_power);
      auto ww = training(pw, k, with_power);
      if (kk.empty()) kk = pk, ww = pw;  // only when every powered mode is in this fold
      pfold[f].push_back(PowerModel::fit(options.power_forms[f], kk, ww, &out.time_loo_[k]));
    }
    std::vector<double> residuals;
    for (std::size_t r = 0; r < with_power.size(); ++r) {
      const double p = pfold[f][out.fold_of_[with_power[r]]].power_w(pk[r]);
      residuals.push_back(std::log(pw[r]) - std::log(std::max(p, 1e-12)));
    }
    pmape[f] = mean_abs_relative(residuals);
    presid[f] = std::move(residuals);
  }
  for (std::size_t f = 0; f < options.power_forms.size(); ++f) {
    out.power_scores_.push_back({std::string(to_string(options.power_forms[f])), pmape[f]});
  }
  std::size_t pchosen = pick(options.power_forms, pmape);
  out.power_form_ = options.power_forms[pchosen];
  out.power_full_ = PowerModel::fit(*out.power_form_, pk, pw, &out.time_full_);
  out.power_loo_ = std::move(pfold[pchosen]);
  out.power_loo_point_ = with_power;
  out.loo_power_mape_ = *pmape[pchosen];
  std::vector<double> energy_log;
  for (std::size_t r = 0; r < with_power.size(); ++r) {
    out.power_residual_.push_back(std::abs(presid[pchosen][r]));
    const std::size_t i = with_power[r], k = out.fold_of_[i];
    const double measured = profiled[i].energy_j.value_or(pw[r] * times[i]);
    const double predicted = out.power_loo_[k].power_w(knobs[i]) * out.time_loo_[k].time_s(knobs[i]);
    const double e = std::log(measured) - std::log(std::max(predicted, 1e-12));
    energy_log.push_back(e);
    out.energy_residual_.push_back(std::abs(e));
  }
  out.loo_energy_mape_ = mean_abs_relative(energy_log);
  return out;
}

ModePrediction ModePredictor::predict(const PowerMode& mode) const {
  const ModeKnobs k = ModeKnobs::of(mode);
  ModePrediction out;
  // Each fold's fit predicts once; every profiled mode then pairs its fold's prediction with its
  // own residual.
  std::vector<double> fold_t, fold_p;
  for (const TimeModel& m : time_loo_) fold_t.push_back(std::log(m.time_s(k)));
  for (const PowerModel& m : power_loo_) fold_p.push_back(std::log(std::max(m.power_w(k), 1e-12)));
  std::vector<double> t_log;
  for (std::size_t i = 0; i < fold_of_.size(); ++i) t_log.push_back(fold_t[fold_of_[i]]);
  const double t = time_full_.time_s(k);
  out.time_s = jackknife_plus(t, t_log, time_residual_, level_);
  if (power_full_) {
    std::vector<double> p_log, e_log;
    for (std::size_t i : power_loo_point_) {
      p_log.push_back(fold_p[fold_of_[i]]);
      e_log.push_back(fold_p[fold_of_[i]] + fold_t[fold_of_[i]]);
    }
    const double p = power_full_->power_w(k);
    out.power_w = jackknife_plus(p, p_log, power_residual_, level_);
    out.energy_j = jackknife_plus(p * t, e_log, energy_residual_, level_);
  }
  return out;
}

double ModePredictor::uncertainty(const PowerMode& mode) const {
  const ModeKnobs k = ModeKnobs::of(mode);
  std::vector<double> t_log, p_log;
  for (const TimeModel& m : time_loo_) t_log.push_back(std::log(m.time_s(k)));
  for (const PowerModel& m : power_loo_) p_log.push_back(std::log(std::max(m.power_w(k), 1e-12)));
  return std::hypot(jackknife_sd(t_log), jackknife_sd(p_log));
}

}  // namespace jetchar::analysis
