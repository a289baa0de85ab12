#include "analysis/pareto.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>

namespace jetchar::analysis {

bool dominates(const TimeEnergy& a, const TimeEnergy& b) {
  return a.time_s <= b.time_s && a.energy_j <= b.energy_j && (a.time_s < b.time_s || a.energy_j < b.energy_j);
}

std::vector<std::size_t> pareto_front(std::span<const TimeEnergy> points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time_s != points[b].time_s) return points[a].time_s < points[b].time_s;
    if (points[a].energy_j != points[b].energy_j) return points[a].energy_j < points[b].energy_j;
    return a < b;
  });
  // Sweep in time order: a point is on the front when its energy is below every earlier point's,
  // or equals the last front point exactly (a duplicate).
  std::vector<std::size_t> front;
  double best_energy = std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    const TimeEnergy& p = points[i];
    if (p.energy_j < best_energy) {
      front.push_back(i);
      best_energy = p.energy_j;
    } else if (!front.empty() && p.energy_j == best_energy && p.time_s == points[front.back()].time_s) {
      front.push_back(i);
    }
  }
  return front;
}

std::vector<ParetoGroup> pareto_groups(const std::vector<ConfigPoint>& points, const std::vector<std::string>& per) {
  std::vector<ConfigPoint> with_energy;
  std::copy_if(points.begin(), points.end(), std::back_inserter(with_energy),
               [](const ConfigPoint& p) { return p.energy_j.has_value(); });
  std::vector<ParetoGroup> out;
  for (auto& group : group_configurations(with_energy, per)) {
    std::stable_sort(group.points.begin(), group.points.end(),
                     [](const ConfigPoint& a, const ConfigPoint& b) { return a.time_s < b.time_s; });
    std::vector<TimeEnergy> te;
    for (const ConfigPoint& p : group.points) te.push_back({p.time_s, *p.energy_j});
    ParetoGroup g;
    static_cast<ConfigGroup&>(g) = std::move(group);
    g.front = pareto_front(te);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace jetchar::analysis
