#include "analysis/mode_predictor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/stacking.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

// The ⌈rank⌉-th smallest of `values` (1-based), clamped to the range.
double order_statistic(std::vector<double> values, double rank) {
  std::sort(values.begin(), values.end());
  auto k = static_cast<std::ptrdiff_t>(std::ceil(rank - 1e-9));
  k = std::clamp<std::ptrdiff_t>(k, 1, static_cast<std::ptrdiff_t>(values.size()));
  return values[static_cast<std::size_t>(k - 1)];
}

// Jackknife+ on a log scale; see the header.
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
  Interval out;
  out.value = full;
  out.low = std::min(full, std::exp(order_statistic(lo, low_rank)));
  out.high = std::max(full, std::exp(order_statistic(hi, std::ceil((1 - alpha) * (n + 1)))));
  return out;
}

// Widens a jackknife+ interval by the left-out fits' disagreement at x; see the header.
Interval with_spread(Interval jk, const std::vector<double>& fold_log, const std::vector<double>& residual,
                     double level) {
  const double noise = order_statistic(residual, std::ceil(level * (static_cast<double>(residual.size()) + 1)));
  // The (delete-d) jackknife variance of the prediction at x over the K fold fits.
  const auto k = static_cast<double>(fold_log.size());
  double mean = 0;
  for (double v : fold_log) mean += v;
  mean /= k;
  double ss = 0;
  for (double v : fold_log) ss += (v - mean) * (v - mean);
  const double spread_var = (k - 1) / k * ss;
  const double z = normal_quantile((1 + level) / 2);
  const double half = std::sqrt(noise * noise + z * z * spread_var);
  const double centre = std::log(jk.value);
  jk.low = std::min(jk.low, std::exp(centre - half));
  jk.high = std::max(jk.high, std::exp(centre + half));
  return jk;
}

// Scales the log distances of the bounds from the value.
void widen(Interval& i, double factor) {
  i.low = i.value * std::pow(i.low / i.value, factor);
  i.high = i.value * std::pow(i.high / i.value, factor);
}

double mean_abs_relative(const std::vector<double>& log_residuals) {
  double s = 0;
  for (double r : log_residuals) s += std::abs(std::expm1(r));
  return 100 * s / static_cast<double>(log_residuals.size());
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
    throw std::invalid_argument(fmt::format("the mode predictor needs at least 3 profiled modes; got {}", profiled.size()));
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
  std::vector<std::vector<double>> cv_log(forms.size());   // each mode's left-out log prediction
  for (std::size_t f = 0; f < forms.size(); ++f) {
    // A form is judged only when each left-out fit has as many modes as parameters; the
    // simplest one always is, on its priors, so that a few modes still give a prediction.
    if (f > 0 && n - (n + folds - 1) / folds < parameter_count(forms[f])) continue;
    for (std::size_t k = 0; k < folds; ++k) {
      fold_models[f].push_back(TimeModel::fit(forms[f], training(knobs, k, all), training(times, k, all)));
    }
    std::vector<double> residuals;
    for (std::size_t i = 0; i < n; ++i) {
      cv_log[f].push_back(std::log(fold_models[f][out.fold_of_[i]].time_s(knobs[i])));
      residuals.push_back(std::log(times[i]) - cv_log[f].back());
    }
    mape[f] = mean_abs_relative(residuals);
  }
  std::vector<double> log_times;
  for (double t : times) log_times.push_back(std::log(t));
  const std::vector<double> time_weight = stacking_weights(cv_log, log_times);
  for (std::size_t f = 0; f < forms.size(); ++f) {
    out.time_scores_.push_back({std::string(to_string(forms[f])), mape[f], time_weight[f]});
  }
  std::size_t chosen = pick(forms, mape);
  if (chosen == forms.size()) {
    throw std::invalid_argument(fmt::format("{} profiled modes are too few for any of the time forms asked for", n));
  }
  // The form with the largest weight names the model and gives the power forms their activity.
  chosen = static_cast<std::size_t>(std::max_element(time_weight.begin(), time_weight.end()) - time_weight.begin());
  out.time_form_ = forms[chosen];
  std::vector<double> stacked(n, 0.0);
  for (std::size_t f = 0; f < forms.size(); ++f) {
    if (time_weight[f] <= 0) continue;
    for (std::size_t i = 0; i < n; ++i) stacked[i] += time_weight[f] * cv_log[f][i];
    TimeMember m{forms[f], time_weight[f], TimeModel::fit(forms[f], knobs, times), std::move(fold_models[f])};
    if (f == chosen) out.time_full_ = m.full, out.time_loo_ = m.folds;
    out.time_members_.push_back(std::move(m));
  }
  std::vector<double> time_log_residual;
  for (std::size_t i = 0; i < n; ++i) {
    time_log_residual.push_back(log_times[i] - stacked[i]);
    out.time_residual_.push_back(std::abs(time_log_residual.back()));
  }
  out.loo_time_mape_ = mean_abs_relative(time_log_residual);

  // Power: the same folds over the modes with a power, each fold's fit with that fold's time fit.
  if (with_power.size() < 3 || options.power_forms.empty()) return out;
  std::vector<ModeKnobs> pk;
  std::vector<double> pw, log_pw;
  for (std::size_t i : with_power) {
    pk.push_back(knobs[i]), pw.push_back(*profiled[i].power_w), log_pw.push_back(std::log(*profiled[i].power_w));
  }
  const std::size_t np = options.power_forms.size();
  std::vector<std::optional<double>> pmape(np);
  std::vector<std::vector<PowerModel>> pfold(np);
  std::vector<std::vector<double>> pcv_log(np);
  for (std::size_t f = 0; f < np; ++f) {
    for (std::size_t k = 0; k < folds; ++k) {
      auto kk = training(pk, k, with_power);
      auto ww = training(pw, k, with_power);
      if (kk.empty()) kk = pk, ww = pw;  // only when every powered mode is in this fold
      pfold[f].push_back(PowerModel::fit(options.power_forms[f], kk, ww, &out.time_loo_[k]));
    }
    std::vector<double> residuals;
    for (std::size_t r = 0; r < with_power.size(); ++r) {
      pcv_log[f].push_back(std::log(std::max(pfold[f][out.fold_of_[with_power[r]]].power_w(pk[r]), 1e-12)));
      residuals.push_back(log_pw[r] - pcv_log[f].back());
    }
    pmape[f] = mean_abs_relative(residuals);
  }
  const std::vector<double> power_weight = stacking_weights(pcv_log, log_pw);
  for (std::size_t f = 0; f < np; ++f) {
    out.power_scores_.push_back({std::string(to_string(options.power_forms[f])), pmape[f], power_weight[f]});
  }
  const auto pchosen =
      static_cast<std::size_t>(std::max_element(power_weight.begin(), power_weight.end()) - power_weight.begin());
  out.power_form_ = options.power_forms[pchosen];
  std::vector<double> pstacked(with_power.size(), 0.0);
  for (std::size_t f = 0; f < np; ++f) {
    if (power_weight[f] <= 0) continue;
    for (std::size_t r = 0; r < with_power.size(); ++r) pstacked[r] += power_weight[f] * pcv_log[f][r];
    out.power_members_.push_back({options.power_forms[f], power_weight[f],
                                  PowerModel::fit(options.power_forms[f], pk, pw, &out.time_full_), std::move(pfold[f])});
  }
  out.power_loo_point_ = with_power;
  std::vector<double> power_log_residual, energy_log;
  for (std::size_t r = 0; r < with_power.size(); ++r) {
    power_log_residual.push_back(log_pw[r] - pstacked[r]);
    out.power_residual_.push_back(std::abs(power_log_residual.back()));
    const std::size_t i = with_power[r];
    const double measured = profiled[i].energy_j.value_or(pw[r] * times[i]);
    const double e = std::log(measured) - (pstacked[r] + stacked[i]);
    energy_log.push_back(e);
    out.energy_residual_.push_back(std::abs(e));
  }
  out.loo_power_mape_ = mean_abs_relative(power_log_residual);
  out.loo_energy_mape_ = mean_abs_relative(energy_log);
  return out;
}

double ModePredictor::log_time(const ModeKnobs& k, std::optional<std::size_t> fold) const {
  double s = 0;
  for (const TimeMember& m : time_members_) s += m.weight * std::log((fold ? m.folds[*fold] : m.full).time_s(k));
  return s;
}

double ModePredictor::log_power(const ModeKnobs& k, std::optional<std::size_t> fold) const {
  double s = 0;
  for (const PowerMember& m : power_members_) {
    s += m.weight * std::log(std::max((fold ? m.folds[*fold] : m.full).power_w(k), 1e-12));
  }
  return s;
}

ModePrediction ModePredictor::predict(const PowerMode& mode) const {
  const ModeKnobs k = ModeKnobs::of(mode);
  ModePrediction out;
  // Each fold's fit predicts once; every profiled mode then pairs its fold's prediction with its
  // own residual.
  const std::size_t folds = time_members_.front().folds.size();
  std::vector<double> fold_t, fold_p;
  for (std::size_t f = 0; f < folds; ++f) {
    fold_t.push_back(log_time(k, f));
    if (!power_members_.empty()) fold_p.push_back(log_power(k, f));
  }
  std::vector<double> t_log;
  for (std::size_t i = 0; i < fold_of_.size(); ++i) t_log.push_back(fold_t[fold_of_[i]]);
  const double t = std::exp(log_time(k, std::nullopt));
  out.time_s = with_spread(jackknife_plus(t, t_log, time_residual_, level_), fold_t, time_residual_, level_);
  if (!power_members_.empty()) {
    std::vector<double> p_log, e_log;
    for (std::size_t i : power_loo_point_) {
      p_log.push_back(fold_p[fold_of_[i]]);
      e_log.push_back(fold_p[fold_of_[i]] + fold_t[fold_of_[i]]);
    }
    const double p = std::exp(log_power(k, std::nullopt));
    std::vector<double> fold_e;
    for (std::size_t f = 0; f < fold_p.size(); ++f) fold_e.push_back(fold_p[f] + fold_t[f]);
    out.power_w = with_spread(jackknife_plus(p, p_log, power_residual_, level_), fold_p, power_residual_, level_);
    out.energy_j = with_spread(jackknife_plus(p * t, e_log, energy_residual_, level_), fold_e, energy_residual_, level_);
    widen(*out.power_w, power_widen_);
    widen(*out.energy_j, std::max(time_widen_, power_widen_));
  }
  widen(out.time_s, time_widen_);
  return out;
}

const PowerModel* ModePredictor::power_model() const {
  const PowerMember* heaviest = nullptr;
  for (const PowerMember& m : power_members_) {
    if (!heaviest || m.weight > heaviest->weight) heaviest = &m;
  }
  return heaviest ? &heaviest->full : nullptr;
}

void ModePredictor::widen_intervals(double time_factor, double power_factor) {
  for (double f : {time_factor, power_factor}) {
    if (!(f >= 1) || !std::isfinite(f)) {
      throw std::invalid_argument(fmt::format("interval widening factor {} is not a finite number >= 1", f));
    }
  }
  time_widen_ = time_factor, power_widen_ = power_factor;
}

double ModePredictor::uncertainty(const PowerMode& mode) const {
  const ModeKnobs k = ModeKnobs::of(mode);
  std::vector<double> t_log, p_log;
  const std::size_t folds = time_members_.front().folds.size();
  for (std::size_t f = 0; f < folds; ++f) {
    t_log.push_back(log_time(k, f));
    if (!power_members_.empty()) p_log.push_back(log_power(k, f));
  }
  return std::hypot(jackknife_sd(t_log), jackknife_sd(p_log));
}

}  // namespace jetchar::analysis
