#include "analysis/profile_design.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "analysis/adaptive_profile.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_model.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

// The median over random trials: one unlucky, nearly collinear choice should not dominate the
// comparison in the design's favour.
std::optional<double> median_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return median(v);
}

void check_leaves_some(std::size_t points, std::size_t count) {
  if (count >= points) {
    throw std::invalid_argument(
        fmt::format("cannot profile {} of {} modes and keep some to evaluate on", count, points));
  }
}

std::optional<double> mean_pct(const std::vector<double>& relative_errors) {
  if (relative_errors.empty()) return std::nullopt;
  return 100 * std::accumulate(relative_errors.begin(), relative_errors.end(), 0.0) /
         static_cast<double>(relative_errors.size());
}

struct HeldOutMapes {
  std::optional<double> time, energy, power;
};

// The auto predictor's MAPE over `test`, against each point's measured values.
HeldOutMapes auto_held_out(const ModePredictor& model, std::span<const ConfigPoint> test) {
  std::vector<double> time, power, energy;
  for (const ConfigPoint& p : test) {
    const ModePrediction predicted = model.predict(p.key.mode);
    time.push_back(std::abs(predicted.time_s.value / p.time_s - 1));
    if (predicted.power_w && p.power_w) power.push_back(std::abs(predicted.power_w->value / *p.power_w - 1));
    if (predicted.energy_j && p.energy_j) energy.push_back(std::abs(predicted.energy_j->value / *p.energy_j - 1));
  }
  return {mean_pct(time), mean_pct(energy), mean_pct(power)};
}

using ScoreSplit = std::function<HeldOutMapes(std::span<const ConfigPoint> train, std::span<const ConfigPoint> test)>;

// `score` of the split the design makes and the median of its scores over `trials` seeded random
// choices of as many points.
ProfileEvaluation compare_with_random(std::span<const ConfigPoint> points, std::size_t count,
                                      const std::vector<std::size_t>& design, int trials, std::uint64_t seed,
                                      const ScoreSplit& score) {
  check_leaves_some(points.size(), count);
  // The fit sees the picked points in the order picked, as predict --profile fits them.
  auto split = [&](const std::vector<std::size_t>& picked) {
    std::vector<bool> in(points.size(), false);
    std::vector<ConfigPoint> train, test;
    for (std::size_t i : picked) in[i] = true, train.push_back(points[i]);
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!in[i]) test.push_back(points[i]);
    }
    return score(train, test);
  };
  ProfileEvaluation out;
  out.profiled = count;
  out.evaluated = points.size() - count;
  const HeldOutMapes designed = split(design);
  out.design_time_mape = designed.time;
  out.design_energy_mape = designed.energy;
  out.design_power_mape = designed.power;

  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(points.size());
  std::vector<double> times, energies, powers;
  for (int t = 0; t < trials; ++t) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const HeldOutMapes random = split({order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count)});
    if (random.time) times.push_back(*random.time);
    if (random.energy) energies.push_back(*random.energy);
    if (random.power) powers.push_back(*random.power);
  }
  out.random_trials = trials;
  out.random_time_mape = median_of(times);
  out.random_energy_mape = median_of(energies);
  out.random_power_mape = median_of(powers);
  return out;
}

}  // namespace

std::vector<std::size_t> spread_design(std::span<const PowerMode> candidates, std::size_t count) {
  auto x = normalised_log_knobs(candidates);
  const std::size_t n = x.size();
  count = std::min(count, n);
  std::vector<std::size_t> chosen;
  if (count == 0) return chosen;
  auto distance = [&](std::size_t a, std::size_t b) {
    double s = 0;
    for (std::size_t d = 0; d < 4; ++d) s += (x[a][d] - x[b][d]) * (x[a][d] - x[b][d]);
    return s;
  };
  std::size_t first = 0;
  double best_sum = -1;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = x[i][0] + x[i][1] + x[i][2] + x[i][3];
    if (sum > best_sum) best_sum = sum, first = i;
  }
  chosen.push_back(first);
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  while (chosen.size() < count) {
    std::size_t last = chosen.back();
    std::size_t next = n;
    double farthest = -1;
    for (std::size_t i = 0; i < n; ++i) {
      nearest[i] = std::min(nearest[i], distance(i, last));
      if (nearest[i] > farthest) farthest = nearest[i], next = i;
    }
    if (farthest <= 0) {  // duplicates only: take the first not yet chosen
      for (std::size_t i = 0; i < n; ++i) {
        if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) {
          next = i;
          break;
        }
      }
    }
    chosen.push_back(next);
    nearest[next] = -1;
  }
  return chosen;
}

ProfileEvaluation evaluate_profile_choice(ModelKind kind, std::span<const ConfigPoint> points, std::size_t count,
                                          int trials, std::uint64_t seed) {
  std::vector<PowerMode> modes;
  for (const ConfigPoint& p : points) modes.push_back(p.key.mode);
  return compare_with_random(points, count, spread_design(modes, count), trials, seed,
                             [&](std::span<const ConfigPoint> train, std::span<const ConfigPoint> test) {
                               auto rows = holdout(kind, train, test);
                               return HeldOutMapes{mape_time(rows), mape_energy(rows), std::nullopt};
                             });
}

ProfileEvaluation evaluate_auto_profile_choice(std::span<const ConfigPoint> points, std::size_t count, int trials,
                                               std::uint64_t seed, const ModePredictorOptions& options) {
  if (count < 3) {
    throw std::invalid_argument(fmt::format("the auto predictor needs at least 3 profiled modes; got {}", count));
  }
  check_leaves_some(points.size(), count);
  return compare_with_random(points, count, adaptive_pick(points, count, options), trials, seed,
                             [&](std::span<const ConfigPoint> train, std::span<const ConfigPoint> test) {
                               return auto_held_out(ModePredictor::fit(train, options), test);
                             });
}

std::vector<ProfileComparison> compare_profile_designs(std::span<const ConfigPoint> points, std::size_t profiled,
                                                       const std::vector<ModelKind>& kinds, bool with_auto,
                                                       std::uint64_t seed, const ModePredictorOptions& options) {
  std::vector<ProfileComparison> out;
  const std::size_t modes = points.size();
  auto needs = [&](std::size_t least) {
    return fmt::format("needs between {} and {} profiled modes", least, modes > 0 ? modes - 1 : 0);
  };
  for (ModelKind kind : kinds) {
    const std::size_t least = TimeEnergyModel::coefficient_count(kind);
    if (profiled < least || profiled >= modes) {
      out.push_back({std::string(to_string(kind)), std::nullopt, needs(least)});
    } else {
      out.push_back({std::string(to_string(kind)),
                     evaluate_profile_choice(kind, points, profiled, kRandomProfileChoices, seed), ""});
    }
  }
  if (with_auto) {
    if (profiled < 3 || profiled >= modes) {
      out.push_back({"auto", std::nullopt, needs(3)});
    } else {
      out.push_back(
          {"auto", evaluate_auto_profile_choice(points, profiled, kAutoRandomProfileChoices, seed, options), ""});
    }
  }
  return out;
}

}  // namespace jetchar::analysis
