#include "analysis/mode_predictions.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "analysis/pareto.h"
#include "analysis/report_html.h"

namespace jetchar::analysis {
namespace {

PredictedFrontPoint point_of(const StoredModePrediction& p, std::size_t index) {
  PredictedFrontPoint out;
  out.prediction = index;
  if (p.profiled && p.measured_time_s && p.measured_power_w) {
    out.measured = true;
    out.time_s = out.time_low_s = out.time_high_s = *p.measured_time_s;
    out.energy_j = out.energy_low_j = out.energy_high_j = *p.measured_time_s * *p.measured_power_w;
    return out;
  }
  out.time_s = p.time_s.value;
  out.time_low_s = p.time_s.low;
  out.time_high_s = p.time_s.high;
  out.energy_j = p.energy_j->value;
  out.energy_low_j = p.energy_j->low;
  out.energy_high_j = p.energy_j->high;
  return out;
}

// may_be_on_front for every point: a point is surely off the front when some other point's
// pessimistic corner (time high, energy high) dominates its optimistic corner (time low, energy
// low). Pessimistic corners sorted by time with running minima of their energies answer each
// point in O(log n); a point's own corner never dominates its optimistic one (it is no better
// in either), so it need not be excluded.
void mark_may_be_on_front(std::vector<PredictedFrontPoint>& points) {
  std::vector<std::pair<double, double>> corners;  // (time high, energy high), by time
  for (const auto& p : points) corners.emplace_back(p.time_high_s, p.energy_high_j);
  std::sort(corners.begin(), corners.end());
  std::vector<double> least_energy(corners.size());
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < corners.size(); ++i) least_energy[i] = least = std::min(least, corners[i].second);
  const auto least_up_to = [&](auto end) {
    const auto n = static_cast<std::size_t>(end - corners.begin());
    return n == 0 ? std::numeric_limits<double>::infinity() : least_energy[n - 1];
  };
  for (auto& p : points) {
    const double time = p.time_low_s, energy = p.energy_low_j;
    // Corners no slower: dominated when one of them is cheaper; corners faster: when one is no dearer.
    const auto no_slower =
        std::upper_bound(corners.begin(), corners.end(), std::make_pair(time, std::numeric_limits<double>::infinity()));
    const auto faster = std::lower_bound(corners.begin(), corners.end(),
                                         std::make_pair(time, -std::numeric_limits<double>::infinity()));
    const bool dominated = least_up_to(no_slower) < energy || least_up_to(faster) <= energy;
    p.may_be_on_front = p.on_front || !dominated;
  }
}

}  // namespace

std::vector<PredictedParetoFront> predicted_pareto_fronts(const std::vector<StoredModePrediction>& predictions) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> by_sweep;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    auto [it, added] = by_sweep.try_emplace(predictions[i].sweep);
    if (added) order.push_back(predictions[i].sweep);
    it->second.push_back(i);
  }
  std::vector<PredictedParetoFront> fronts;
  for (const std::string& sweep : order) {
    PredictedParetoFront front;
    front.sweep = sweep;
    for (const std::size_t i : by_sweep[sweep]) {
      const StoredModePrediction& p = predictions[i];
      front.level = p.level;
      const bool measured = p.profiled && p.measured_time_s && p.measured_power_w;
      if (measured || p.energy_j) front.points.push_back(point_of(p, i));
    }
    if (front.points.empty()) continue;
    std::stable_sort(front.points.begin(), front.points.end(),
                     [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
    std::vector<TimeEnergy> plane;
    for (const auto& p : front.points) plane.push_back({p.time_s, p.energy_j});
    front.front = pareto_front(plane);
    for (const std::size_t i : front.front) {
      front.points[i].on_front = true;
      ++(front.points[i].measured ? front.measured_on_front : front.predicted_on_front);
    }
    mark_may_be_on_front(front.points);
    fronts.push_back(std::move(front));
  }
  return fronts;
}

std::vector<const PredictedFrontPoint*> front_points_by_prediction(const std::vector<PredictedParetoFront>& fronts,
                                                                   std::size_t count) {
  std::vector<const PredictedFrontPoint*> at(count, nullptr);
  for (const auto& f : fronts) {
    for (const auto& p : f.points) at[p.prediction] = &p;
  }
  return at;
}

nlohmann::json predicted_front_point_json(const PredictedFrontPoint& point, const StoredModePrediction& prediction,
                                          bool with_front_marks) {
  nlohmann::json out = {
      {"mode", prediction.mode.label()},    {"measured", point.measured},          {"time_s", point.time_s},
      {"energy_j", point.energy_j},         {"time_low_s", point.time_low_s},      {"time_high_s", point.time_high_s},
      {"energy_low_j", point.energy_low_j}, {"energy_high_j", point.energy_high_j}};
  if (with_front_marks) {
    out["on_front"] = point.on_front;
    out["may_be_on_front"] = point.may_be_on_front;
  }
  return out;
}

nlohmann::json interval_json(const std::optional<Interval>& interval) {
  if (!interval) return nullptr;
  return {{"value", interval->value}, {"low", interval->low}, {"high", interval->high}};
}

nlohmann::json mode_choice_json(const StoredModeChoice& c) {
  using report_html::optional_json;
  return {{"budget", c.budget},
          {"confidence", c.confidence},
          {"mode", c.mode ? nlohmann::json(*c.mode) : nlohmann::json(nullptr)},
          {"measured", c.measured},
          {"time_s", optional_json(c.time_s)},
          {"energy_j", optional_json(c.energy_j)},
          {"eligible", c.eligible},
          {"modes", c.modes},
          {"expected_regret_pct", optional_json(c.expected_regret_pct)},
          {"within_one_pct_probability", optional_json(c.within_one_pct_probability)}};
}

}  // namespace jetchar::analysis
