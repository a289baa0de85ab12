#include "analysis/profile_design.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

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
  ProfileEvaluation out;
  out.profiled = count;
  if (count >= points.size()) {
    throw std::invalid_argument(
        fmt::format("cannot profile {} of {} modes and keep some to evaluate on", count, points.size()));
  }
  out.evaluated = points.size() - count;
  auto split = [&](const std::vector<std::size_t>& picked) {
    std::vector<bool> in(points.size(), false);
    for (std::size_t i : picked) in[i] = true;
    std::vector<ConfigPoint> train, test;
    for (std::size_t i = 0; i < points.size(); ++i) (in[i] ? train : test).push_back(points[i]);
    return holdout(kind, train, test);
  };
  std::vector<PowerMode> modes;
  for (const ConfigPoint& p : points) modes.push_back(p.key.mode);
  auto rows = split(spread_design(modes, count));
  out.design_time_mape = mape_time(rows);
  out.design_energy_mape = mape_energy(rows);

  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(points.size());
  std::vector<double> times, energies;
  for (int t = 0; t < trials; ++t) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    auto random_rows = split({order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count)});
    if (auto m = mape_time(random_rows)) times.push_back(*m);
    if (auto m = mape_energy(random_rows)) energies.push_back(*m);
  }
  out.random_trials = trials;
  out.random_time_mape = median_of(times);
  out.random_energy_mape = median_of(energies);
  return out;
}

}  // namespace jetchar::analysis
