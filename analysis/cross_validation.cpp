#include "analysis/cross_validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <tuple>

#include "analysis/config_groups.h"

namespace jetchar::analysis {
namespace {

std::optional<double> mape(std::span<const PredictedVsMeasured> rows, bool energy) {
  double total = 0;
  std::size_t n = 0;
  for (const auto& r : rows) {
    double measured = 0, predicted = 0;
    if (energy) {
      if (!r.measured_energy_j || !r.predicted_energy_j) continue;
      measured = *r.measured_energy_j;
      predicted = *r.predicted_energy_j;
    } else {
      measured = r.measured_time_s;
      predicted = r.predicted_time_s;
    }
    if (measured == 0) return std::nullopt;
    total += std::abs(predicted - measured) / std::abs(measured);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return 100 * total / static_cast<double>(n);
}

}  // namespace

std::string ModeGroup::label() const {
  std::string out = workload;
  if (query_latency) out += " inference";
  for (const auto& [axis, value] : axes) {
    if (shown_axes.contains(axis)) out += " " + axis + "=" + value;
  }
  return out;
}

std::vector<ModeGroup> mode_groups(const std::vector<ConfigPoint>& points) {
  // An inference group's times are latencies: the models fit them as they fit epoch times, in a
  // group of their own.
  using GroupId = std::tuple<std::string, std::optional<LatencyPercentile>, std::map<std::string, std::string>>;
  std::map<GroupId, std::vector<ConfigPoint>> groups;
  for (const ConfigPoint& p : points) {
    if (p.key.mode.has_knobs()) groups[{p.key.workload, p.query_latency, p.key.axes}].push_back(p);
  }
  std::vector<ConfigKey> keys;
  for (const auto& entry : groups) keys.push_back({std::get<0>(entry.first), {}, std::get<2>(entry.first)});
  const auto shown = varying_axes(keys);
  std::vector<ModeGroup> out;
  for (auto& [id, members] : groups)
    out.push_back({std::get<0>(id), std::get<2>(id), std::move(members), shown, std::get<1>(id)});
  return out;
}

std::optional<double> mape_time(std::span<const PredictedVsMeasured> rows) { return mape(rows, false); }
std::optional<double> mape_energy(std::span<const PredictedVsMeasured> rows) { return mape(rows, true); }

std::vector<PredictedVsMeasured> holdout(ModelKind kind, std::span<const ConfigPoint> train,
                                         std::span<const ConfigPoint> test) {
  TimeEnergyModel model = TimeEnergyModel::fit(kind, train);
  std::vector<PredictedVsMeasured> rows;
  for (const ConfigPoint& p : test) {
    Prediction pred = model.predict(p.key.mode);
    rows.push_back({p.key.mode, p.time_s, pred.time_s, p.energy_j, pred.energy_j});
  }
  return rows;
}

Validation cross_validate(ModelKind kind, std::span<const ConfigPoint> points, int folds, std::uint64_t seed) {
  Validation v;
  v.kind = kind;
  v.points = points.size();
  const std::size_t need = TimeEnergyModel::coefficient_count(kind);
  const std::size_t n = points.size();

  if (n >= need + 1) {
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<ConfigPoint> train;
      for (std::size_t j = 0; j < n; ++j) {
        if (j != i) train.push_back(points[j]);
      }
      auto rows = holdout(kind, train, points.subspan(i, 1));
      v.loo.push_back(rows.front());
    }
    v.loo_time_mape = mape_time(v.loo);
    v.loo_energy_mape = mape_energy(v.loo);
  }

  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(folds, 2)), n);
  v.folds = static_cast<int>(k);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<PredictedVsMeasured> kfold_rows;
  for (std::size_t f = 0; f < k; ++f) {
    std::vector<ConfigPoint> train, test;
    for (std::size_t r = 0; r < n; ++r) (r % k == f ? test : train).push_back(points[order[r]]);
    if (train.size() < need || test.empty()) continue;
    auto rows = holdout(kind, train, test);
    kfold_rows.insert(kfold_rows.end(), rows.begin(), rows.end());
  }
  v.kfold_time_mape = mape_time(kfold_rows);
  v.kfold_energy_mape = mape_energy(kfold_rows);
  return v;
}

}  // namespace jetchar::analysis
