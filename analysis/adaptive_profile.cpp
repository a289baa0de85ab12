#include "analysis/adaptive_profile.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "analysis/predicted_choice.h"

namespace jetchar::analysis {
namespace {

double distance(const std::array<double, 4>& a, const std::array<double, 4>& b) {
  double s = 0;
  for (std::size_t d = 0; d < 4; ++d) s += (a[d] - b[d]) * (a[d] - b[d]);
  return std::sqrt(s);
}

// One column per candidate: its left-out fits' log predictions less their mean, scaled by the
// jackknife's √((n − 1)/n), so that d_x·d_x' is the jackknife covariance of x and x'.
Eigen::MatrixXd deviations(const std::vector<std::vector<double>>& fold_logs) {
  const auto folds = static_cast<Eigen::Index>(fold_logs.front().size());
  Eigen::MatrixXd d(folds, static_cast<Eigen::Index>(fold_logs.size()));
  const double scale = std::sqrt(static_cast<double>(folds - 1) / static_cast<double>(folds));
  for (std::size_t i = 0; i < fold_logs.size(); ++i) {
    Eigen::Map<const Eigen::VectorXd> logs(fold_logs[i].data(), folds);
    d.col(static_cast<Eigen::Index>(i)) = (logs.array() - logs.mean()) * scale;
  }
  return d;
}

// Active learning Cohn (ALC; Cohn, Ghahramani, Jordan, "Active learning with statistical models",
// JAIR 4, 1996): the variance summed over every candidate that measuring each one would remove.
// Measuring x with noise variance σ² lowers the variance at x' by cov(x, x')² / (var x + σ²); summed
// over x' that is d_xᵀ (D Dᵀ) d_x / (d_x·d_x + σ²) with D the deviations above, so no
// candidate-by-candidate matrix is formed.
Eigen::VectorXd variance_removed(const Eigen::MatrixXd& d, double noise) {
  const Eigen::MatrixXd gram = d * d.transpose();
  Eigen::VectorXd out(d.cols());
  for (Eigen::Index i = 0; i < d.cols(); ++i) out(i) = d.col(i).dot(gram * d.col(i)) / (d.col(i).squaredNorm() + noise);
  return out;
}

// The untried candidate whose measurement would remove the most variance from the predictions of
// all candidates, time's and power's (both on a log scale) together; σ² is the chosen forms' mean
// squared left-out residual. Unlike the candidate the fits disagree on most, this weighs how many
// candidates a measurement informs, so it does not chase one extreme corner. The number of
// candidates when every one was tried.
std::size_t most_informative(const ModePredictor& predictor, std::span<const PowerMode> candidates,
                             const std::vector<bool>& tried) {
  if (candidates.empty()) return candidates.size();
  std::vector<std::vector<double>> time_logs, power_logs;
  for (const PowerMode& m : candidates) {
    ModePredictor::FoldPredictions f = predictor.fold_predictions(m);
    time_logs.push_back(std::move(f.log_time));
    power_logs.push_back(std::move(f.log_power));
  }
  Eigen::VectorXd removed = variance_removed(deviations(time_logs), predictor.time_residual_variance());
  if (auto noise = predictor.power_residual_variance()) removed += variance_removed(deviations(power_logs), *noise);
  std::size_t next = candidates.size();
  double most = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double r = removed(static_cast<Eigen::Index>(i));
    if (!tried[i] && r > most) most = r, next = i;
  }
  return next;
}

// The untried candidate farthest from every tried one (knobs as the design scales them); the
// number of candidates when every one was tried.
std::size_t farthest_untried(std::span<const PowerMode> candidates, const std::vector<bool>& tried) {
  const auto x = normalised_log_knobs(candidates);
  std::size_t next = candidates.size();
  double farthest = -1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (tried[i]) continue;
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < candidates.size(); ++j) {
      if (tried[j]) nearest = std::min(nearest, distance(x[i], x[j]));
    }
    if (nearest > farthest) farthest = nearest, next = i;
  }
  return next;
}

}  // namespace

std::vector<std::size_t> space_filling_design(std::span<const PowerMode> candidates, std::size_t count) {
  auto x = normalised_log_knobs(candidates);
  const std::size_t n = x.size();
  count = std::min(count, n);
  std::vector<std::size_t> chosen;
  if (count == 0) return chosen;
  // The first pick is the candidate nearest the centre of the knob box.
  std::size_t first = 0;
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    double d = distance(x[i], {0.5, 0.5, 0.5, 0.5});
    if (d < closest) closest = d, first = i;
  }
  std::vector<bool> taken(n, false);
  taken[first] = true;
  chosen.push_back(first);
  // Greedy maximum projection (MaxPro, Joseph, Gul and Ba, Biometrika 102(2), 2015): add the
  // candidate c minimising Σ_chosen 1 / Π_d ((x_cd − x_jd)² + ε). The product is small when c shares
  // any one knob's value with a chosen mode, so every knob's levels spread out on their own, and
  // the criterion does not push to the corners the way max-min distance does. ε keeps a shared
  // level (common on a grid) finite.
  constexpr double kEpsilon = 0.01;
  std::vector<double> crowding(n, 0);
  auto add = [&](std::size_t j) {
    for (std::size_t i = 0; i < n; ++i) {
      double prod = 1;
      for (std::size_t d = 0; d < 4; ++d) prod *= (x[i][d] - x[j][d]) * (x[i][d] - x[j][d]) + kEpsilon;
      crowding[i] += 1 / prod;
    }
  };
  add(first);
  while (chosen.size() < count) {
    std::size_t best = n;
    double least = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      if (!taken[i] && crowding[i] < least) least = crowding[i], best = i;
    }
    taken[best] = true;
    chosen.push_back(best);
    add(best);
  }
  return chosen;
}

AdaptiveProfileResult adaptive_profile(std::span<const PowerMode> candidates, const MeasureMode& measure,
                                       const AdaptiveProfileOptions& options) {
  if (options.initial_modes < 3) {
    throw std::invalid_argument(
        fmt::format("adaptive profiling starts from at least 3 modes; initial_modes is {}", options.initial_modes));
  }
  if (options.max_modes < options.initial_modes) {
    throw std::invalid_argument(fmt::format("adaptive profiling: max_modes {} is below initial_modes {}",
                                            options.max_modes, options.initial_modes));
  }
  AdaptiveProfileResult out;
  std::vector<bool> tried(candidates.size(), false);
  std::optional<std::size_t> fitted_on;  // how many points out.predictor was fitted on
  auto run = [&](std::size_t i) {
    tried[i] = true;
    if (auto p = measure(candidates[i])) {
      out.profiled.push_back(i);
      out.points.push_back(*p);
      fitted_on = std::nullopt;
    } else {
      out.failed.push_back(i);
    }
  };
  // Fitted only when read (the target's check, an informative pick, the result): along the design
  // with no target nothing reads it, and each fit runs a leave-one-out over every measured mode.
  auto predictor = [&]() -> const std::optional<ModePredictor>& {
    if (fitted_on != out.points.size()) {
      out.predictor.reset();
      if (out.points.size() >= 3) out.predictor = ModePredictor::fit(out.points, options.predictor);
      fitted_on = out.points.size();
    }
    return out.predictor;
  };
  auto finish = [&](const char* reason) -> AdaptiveProfileResult {
    predictor();
    out.stop_reason = reason;
    return std::move(out);
  };
  // Each candidate's measured point, or nullptr: what a choice counts as measured.
  auto measured_points = [&] {
    std::vector<const ConfigPoint*> measured(candidates.size(), nullptr);
    for (std::size_t r = 0; r < out.profiled.size(); ++r) measured[out.profiled[r]] = &out.points[r];
    return measured;
  };
  auto reached = [&] {
    if (!options.target_mape_pct || out.points.size() < options.initial_modes || !predictor()) return false;
    const ModePredictor& p = *out.predictor;
    return p.loo_time_mape() <= *options.target_mape_pct && p.loo_power_mape().value_or(0) <= *options.target_mape_pct;
  };
  auto settled = [&] {
    const auto& d = options.decision;
    if (!d || !d->target_probability || out.points.size() < options.initial_modes || !predictor()) return false;
    const auto choice =
        choose_from_predictions(*out.predictor, candidates, measured_points(), d->budget, d->confidence);
    return choice && choice->within_one_pct_probability >= *d->target_probability;
  };

  // The space-filling design of the whole budget; its first initial_modes start. Until the last
  // quarter of the budget (rounded up) the loop goes on along it, and only then asks the fits:
  // their covariance says little while few modes pin the forms down (measured in bench/README.md,
  // "Adaptive profiling": the design's first 11 of 15 then 4 informative picks beat 8 and 7).
  const std::vector<std::size_t> design = space_filling_design(candidates, options.max_modes);
  const std::size_t filling = std::max(options.initial_modes, options.max_modes - (options.max_modes + 3) / 4);
  std::size_t along = 0;  // the next entry of `design` to run
  auto next_of_design = [&] {
    while (along < design.size() && tried[design[along]]) ++along;
    return along < design.size() ? design[along] : candidates.size();
  };
  while (along < std::min(options.initial_modes, design.size())) run(design[along++]);
  while (true) {
    if (reached()) return finish("target reached");
    if (settled()) return finish("choice settled");
    if (out.profiled.size() >= options.max_modes) return finish("budget spent");
    std::size_t next = out.profiled.size() < filling ? next_of_design() : candidates.size();
    // Past the design, or once failed runs have used it up: the most informative candidate, or
    // with too few successful runs to fit, the one farthest from every tried one.
    if (next == candidates.size() && options.decision && predictor()) {
      const auto& d = *options.decision;
      next = most_decisive(*out.predictor, candidates, measured_points(), tried, d.budget, d.confidence)
                 .value_or(candidates.size());
    }
    if (next == candidates.size()) {
      next = predictor() ? most_informative(*out.predictor, candidates, tried) : farthest_untried(candidates, tried);
    }
    if (next == candidates.size()) return finish("no candidates left");
    run(next);
  }
}

std::vector<std::size_t> adaptive_pick(std::span<const ConfigPoint> points, std::size_t count,
                                       const ModePredictorOptions& options) {
  return adaptive_profile_of(points, count, options).profiled;
}

AdaptiveProfileResult adaptive_profile_of(std::span<const ConfigPoint> points, std::size_t count,
                                          const ModePredictorOptions& options,
                                          const std::optional<AdaptiveProfileOptions::Decision>& decision) {
  std::vector<PowerMode> candidates;
  for (const ConfigPoint& p : points) candidates.push_back(p.key.mode);
  AdaptiveProfileOptions adaptive;
  count = std::min(count, candidates.size());
  if (count <= adaptive.initial_modes) {
    AdaptiveProfileResult out;
    out.profiled = space_filling_design(candidates, count);
    for (std::size_t i : out.profiled) out.points.push_back(points[i]);
    out.stop_reason = "budget spent";
    return out;
  }
  adaptive.max_modes = count;
  adaptive.predictor = options;
  adaptive.decision = decision;
  auto measured = [&](const PowerMode& mode) -> std::optional<ConfigPoint> {
    return points[static_cast<std::size_t>(std::find(candidates.begin(), candidates.end(), mode) - candidates.begin())];
  };
  return adaptive_profile(candidates, measured, adaptive);
}

std::vector<std::size_t> modes_to_profile_next(std::span<const ConfigPoint> profiled,
                                               std::span<const PowerMode> candidates, std::size_t count,
                                               const ModePredictorOptions& options) {
  if (profiled.size() < 3) {
    throw std::invalid_argument(
        fmt::format("suggesting modes to profile needs at least 3 profiled modes; got {}", profiled.size()));
  }
  std::vector<ConfigPoint> points(profiled.begin(), profiled.end());
  std::vector<bool> tried(candidates.size(), false);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ModeKnobs knobs = ModeKnobs::of(candidates[i]);
    tried[i] = std::any_of(points.begin(), points.end(),
                           [&](const ConfigPoint& p) { return ModeKnobs::of(p.key.mode) == knobs; });
  }
  std::vector<std::size_t> out;
  while (out.size() < count) {
    const ModePredictor predictor = ModePredictor::fit(points, options);
    const std::size_t next = most_informative(predictor, candidates, tried);
    if (next == candidates.size()) break;
    out.push_back(next);
    tried[next] = true;
    // Believed at its prediction: the refit's left-out fits agree there, as they would once it is
    // measured, so the next pick moves to where they still disagree.
    ConfigPoint believed;
    believed.key = points.front().key;
    believed.key.mode = candidates[next];
    const ModePrediction p = predictor.predict(candidates[next]);
    believed.time_s = p.time_s.value;
    if (p.power_w) believed.power_w = p.power_w->value;
    if (p.energy_j) believed.energy_j = p.energy_j->value;
    points.push_back(believed);
  }
  return out;
}

}  // namespace jetchar::analysis
