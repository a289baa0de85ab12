#include "analysis/mode_predictor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <utility>

#include "analysis/jackknife_plus.h"
#include "analysis/parallel_for.h"

namespace jetchar::analysis {
namespace {

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

// Leave-one-out up to kMaxLeaveOneOut modes; beyond, kFolds interleaved folds (CV+, the K-fold
// form of jackknife+ in the same paper), so that a predictor fitted on a whole sweep stays fast.
constexpr std::size_t kMaxLeaveOneOut = 40, kFolds = 20;

// The entries of `v` (one per entry of `index`, a list of profiled modes) outside fold `fold`.
template <typename Values>
Values outside_fold(const Values& v, std::size_t fold, const std::vector<std::size_t>& index,
                    const std::vector<std::size_t>& fold_of) {
  Values kept;
  for (std::size_t j = 0; j < index.size(); ++j) {
    if (fold_of[index[j]] != fold) kept.push_back(v[j]);
  }
  return kept;
}

// One form's cross-validation: its fit on every mode, a fit per fold, each mode's left-out log
// residual and their MAPE (no MAPE when the form was not judged).
template <typename Model>
struct FormCrossValidation {
  std::optional<Model> full;
  std::vector<Model> fold_models;
  std::vector<double> residuals;
  std::optional<double> mape;
};

// Fits every judged form on every mode, then each judged form on each fold from its full fit
// (`fit(form, fold or nullopt for every mode, full fit or nullptr)`), all on every core.
template <typename Model, typename Form, typename Fit>
std::vector<FormCrossValidation<Model>> fit_folds(const std::vector<Form>& forms, const std::vector<bool>& judged,
                                                  std::size_t folds, const Fit& fit) {
  std::vector<FormCrossValidation<Model>> out(forms.size());
  std::vector<std::size_t> judged_forms;
  for (std::size_t f = 0; f < forms.size(); ++f) {
    if (judged[f]) judged_forms.push_back(f);
  }
  parallel_for(judged_forms.size(), [&](std::size_t j) {
    const std::size_t f = judged_forms[j];
    out[f].full = fit(forms[f], std::nullopt, nullptr);
  });
  std::vector<std::vector<std::optional<Model>>> fold_models(forms.size(), std::vector<std::optional<Model>>(folds));
  parallel_for(judged_forms.size() * folds, [&](std::size_t task) {
    const std::size_t f = judged_forms[task / folds], k = task % folds;
    fold_models[f][k] = fit(forms[f], k, &*out[f].full);
  });
  for (const std::size_t f : judged_forms) {
    for (auto& m : fold_models[f]) out[f].fold_models.push_back(std::move(*m));
  }
  return out;
}

template <typename Model>
std::vector<std::optional<double>> mapes_of(const std::vector<FormCrossValidation<Model>>& forms) {
  std::vector<std::optional<double>> mape;
  for (const auto& form : forms) mape.push_back(form.mape);
  return mape;
}

// How much smaller `other`'s left-out errors are than `kept`'s, mode by mode, on average: that
// mean when it exceeds twice its standard error, 0 otherwise. From 15 modes the left-out MAPEs of
// forms with 10–20 coefficients differ by chance as much as by fit, and picking the least of
// them picks the noise.
double clear_gain(const std::vector<double>& kept, const std::vector<double>& other) {
  const auto n = static_cast<double>(kept.size());
  std::vector<double> gain;
  for (std::size_t i = 0; i < kept.size(); ++i) gain.push_back(std::abs(kept[i]) - std::abs(other[i]));
  double mean = 0, square = 0;
  for (double g : gain) mean += g / n;
  for (double g : gain) square += (g - mean) * (g - mean) / (n - 1);
  return mean > 2 * std::sqrt(square / n) ? mean : 0;
}

// The power form: the first of `forms` (the physical voltage form by default) unless another one
// is clearly better (clear_gain); then the clearly better one with the largest gain.
std::size_t pick_power(const std::vector<FormCrossValidation<PowerModel>>& forms) {
  std::size_t chosen = 0;
  double best_gain = 0;
  for (std::size_t f = 1; f < forms.size(); ++f) {
    if (!forms[f].mape) continue;
    const double gain = clear_gain(forms[0].residuals, forms[f].residuals);
    if (gain > best_gain) best_gain = gain, chosen = f;
  }
  return chosen;
}

// Time: each form over the folds. A form is judged only when each left-out fit has as many modes
// as parameters; the first (simplest) one always is, on its priors, so that a few modes still give
// a prediction.
std::vector<FormCrossValidation<TimeModel>> cross_validate_time(const std::vector<TimeForm>& forms,
                                                                const std::vector<ModeKnobs>& knobs,
                                                                const std::vector<double>& times,
                                                                const std::vector<std::size_t>& fold_of,
                                                                std::size_t folds) {
  const std::size_t n = knobs.size();
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  std::vector<bool> judged;
  for (std::size_t f = 0; f < forms.size(); ++f)
    judged.push_back(f == 0 || n - (n + folds - 1) / folds >= parameter_count(forms[f]));
  auto out = fit_folds<TimeModel>(forms, judged, folds,
                                  [&](TimeForm form, std::optional<std::size_t> fold, const TimeModel* from) {
                                    if (!fold) return TimeModel::fit(form, knobs, times);
                                    return TimeModel::fit(form, outside_fold(knobs, *fold, all, fold_of),
                                                          outside_fold(times, *fold, all, fold_of), from);
                                  });
  for (std::size_t f = 0; f < forms.size(); ++f) {
    if (!judged[f]) continue;
    for (std::size_t i = 0; i < n; ++i) {
      out[f].residuals.push_back(std::log(times[i]) - std::log(out[f].fold_models[fold_of[i]].time_s(knobs[i])));
    }
    out[f].mape = mean_abs_relative(out[f].residuals);
  }
  return out;
}

// Whether a cubic in each clock is determined on the profiled modes: with fewer than four levels of
// a clock its f, f², f³ and the intercept are collinear there, so the fit may bend any way between
// the levels, and cross-validation cannot see it (every left-out mode shares its level with others).
bool cubics_determined(const std::vector<ModeKnobs>& knobs) {
  std::set<double> cpu, gpu, emc;
  for (const ModeKnobs& k : knobs) cpu.insert(k.cpu_ghz), gpu.insert(k.gpu_ghz), emc.insert(k.emc_ghz);
  return std::min({cpu.size(), gpu.size(), emc.size()}) >= 4;
}

// Power: the same folds over the modes with a power (`with_power`, their knobs `knobs` and powers
// `powers`), each form's full fit with the full time fit and each fold's with that fold's time
// fit. A form with cubics is judged only where they are determined; the first form always is.
std::vector<FormCrossValidation<PowerModel>> cross_validate_power(
    const std::vector<PowerForm>& forms, const std::vector<ModeKnobs>& knobs, const std::vector<double>& powers,
    const std::vector<std::size_t>& with_power, const std::vector<std::size_t>& fold_of, const TimeModel& time_full,
    const std::vector<TimeModel>& time_folds) {
  const bool cubics = cubics_determined(knobs);
  std::vector<bool> judged;
  for (std::size_t f = 0; f < forms.size(); ++f) {
    const bool has_cubics = forms[f] == PowerForm::kPolynomial || forms[f] == PowerForm::kActivity;
    judged.push_back(f == 0 || !has_cubics || cubics);
  }
  auto out = fit_folds<PowerModel>(forms, judged, time_folds.size(),
                                   [&](PowerForm form, std::optional<std::size_t> fold, const PowerModel* from) {
                                     if (!fold) return PowerModel::fit(form, knobs, powers, &time_full);
                                     auto kk = outside_fold(knobs, *fold, with_power, fold_of);
                                     auto ww = outside_fold(powers, *fold, with_power, fold_of);
                                     if (kk.empty())
                                       kk = knobs, ww = powers;  // only when every powered mode is in this fold
                                     return PowerModel::fit(form, kk, ww, &time_folds[*fold], from);
                                   });
  for (std::size_t f = 0; f < forms.size(); ++f) {
    if (!judged[f]) continue;
    for (std::size_t r = 0; r < with_power.size(); ++r) {
      const double p = out[f].fold_models[fold_of[with_power[r]]].power_w(knobs[r]);
      out[f].residuals.push_back(std::log(powers[r]) - std::log(std::max(p, 1e-12)));
    }
    out[f].mape = mean_abs_relative(out[f].residuals);
  }
  return out;
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
  const std::size_t folds = n <= kMaxLeaveOneOut ? n : kFolds;
  out.fold_of_.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.fold_of_[i] = i % folds;

  // Time: the physical forms simplest first, the first within 2 % of the best left-out MAPE
  // wins; the power law after them replaces it only when clearly better (clear_gain), as power's
  // forms replace the voltage form: it has the fewest parameters, so the simplest-first rule would
  // take it on a near tie, and the physical forms are the ones that follow the hardware.
  std::vector<TimeForm> forms = options.time_forms;
  std::sort(forms.begin(), forms.end(), [](TimeForm a, TimeForm b) {
    return std::pair(a == TimeForm::kPowerLaw, parameter_count(a)) <
           std::pair(b == TimeForm::kPowerLaw, parameter_count(b));
  });
  auto time_cv = cross_validate_time(forms, knobs, times, out.fold_of_, folds);
  for (std::size_t f = 0; f < forms.size(); ++f)
    out.time_scores_.push_back({std::string(to_string(forms[f])), time_cv[f].mape});
  const bool power_law_last = forms.back() == TimeForm::kPowerLaw && forms.size() > 1;
  std::vector<std::optional<double>> physical = mapes_of(time_cv);
  if (power_law_last) physical.back().reset();
  std::size_t chosen = pick(forms, physical);
  if (chosen == forms.size()) {
    throw std::invalid_argument(fmt::format("{} profiled modes are too few for any of the time forms asked for", n));
  }
  if (power_law_last && time_cv.back().mape && clear_gain(time_cv[chosen].residuals, time_cv.back().residuals) > 0) {
    chosen = forms.size() - 1;
  }
  out.time_form_ = forms[chosen];
  out.time_full_ = std::move(*time_cv[chosen].full);
  out.time_loo_ = std::move(time_cv[chosen].fold_models);
  out.loo_time_mape_ = *time_cv[chosen].mape;
  for (double r : time_cv[chosen].residuals) out.time_residual_.push_back(std::abs(r));

  if (with_power.size() < 3 || options.power_forms.empty()) return out;
  std::vector<ModeKnobs> pk;
  std::vector<double> pw;
  for (std::size_t i : with_power) pk.push_back(knobs[i]), pw.push_back(*profiled[i].power_w);
  auto power_cv =
      cross_validate_power(options.power_forms, pk, pw, with_power, out.fold_of_, out.time_full_, out.time_loo_);
  for (std::size_t f = 0; f < options.power_forms.size(); ++f) {
    out.power_scores_.push_back({std::string(to_string(options.power_forms[f])), power_cv[f].mape});
  }
  const std::size_t pchosen = pick_power(power_cv);
  out.power_form_ = options.power_forms[pchosen];
  out.power_full_ = std::move(*power_cv[pchosen].full);
  out.power_loo_ = std::move(power_cv[pchosen].fold_models);
  out.power_loo_point_ = with_power;
  out.loo_power_mape_ = *power_cv[pchosen].mape;
  // Energy: each powered mode's left-out power times its left-out time.
  std::vector<double> energy_log;
  for (std::size_t r = 0; r < with_power.size(); ++r) {
    out.power_residual_.push_back(std::abs(power_cv[pchosen].residuals[r]));
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

ModePrediction ModePredictor::predict(const PowerMode& mode, double level) const {
  return predict(mode, fold_predictions(mode), level);
}

ModePrediction ModePredictor::predict(const PowerMode& mode, const FoldPredictions& folds, double level) const {
  if (!(level > 0 && level < 1)) throw std::invalid_argument(fmt::format("interval level {} is outside (0, 1)", level));
  const ModeKnobs k = ModeKnobs::of(mode);
  ModePrediction out;
  // Each fold's fit predicted once; every profiled mode then pairs its fold's prediction with its
  // own residual.
  const std::vector<double>& fold_t = folds.log_time;
  const std::vector<double>& fold_p = folds.log_power;
  std::vector<double> t_log;
  for (std::size_t i = 0; i < fold_of_.size(); ++i) t_log.push_back(fold_t[fold_of_[i]]);
  const double t = time_full_.time_s(k);
  out.time_s = jackknife_plus(t, t_log, time_residual_, level);
  if (power_full_) {
    std::vector<double> p_log, e_log;
    for (std::size_t i : power_loo_point_) {
      p_log.push_back(fold_p[fold_of_[i]]);
      e_log.push_back(fold_p[fold_of_[i]] + fold_t[fold_of_[i]]);
    }
    const double p = power_full_->power_w(k);
    out.power_w = jackknife_plus(p, p_log, power_residual_, level);
    out.energy_j = jackknife_plus(p * t, e_log, energy_residual_, level);
  }
  return out;
}

ModePredictor::FoldPredictions ModePredictor::fold_predictions(const PowerMode& mode) const {
  const ModeKnobs k = ModeKnobs::of(mode);
  FoldPredictions out;
  for (const TimeModel& m : time_loo_) out.log_time.push_back(std::log(m.time_s(k)));
  for (const PowerModel& m : power_loo_) out.log_power.push_back(std::log(std::max(m.power_w(k), 1e-12)));
  return out;
}

namespace {
double mean_square(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s / static_cast<double>(v.size());
}
}  // namespace

double ModePredictor::time_residual_variance() const { return mean_square(time_residual_); }
std::optional<double> ModePredictor::power_residual_variance() const {
  if (!power_full_) return std::nullopt;
  return mean_square(power_residual_);
}
std::optional<double> ModePredictor::energy_residual_variance() const {
  if (!power_full_) return std::nullopt;
  return mean_square(energy_residual_);
}

}  // namespace jetchar::analysis
