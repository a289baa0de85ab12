#include "analysis/pareto.h"

#include <algorithm>
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

std::string ParetoGroup::label() const {
  std::string out = workload;
  for (const auto& [axis, value] : fixed) out += " " + axis + "=" + value;
  return out;
}

std::vector<ParetoGroup> pareto_groups(const std::vector<ConfigPoint>& points, const std::vector<std::string>& per) {
  std::map<std::pair<std::string, std::map<std::string, std::string>>, std::vector<ConfigPoint>> groups;
  for (const ConfigPoint& p : points) {
    if (!p.energy_j) continue;
    std::map<std::string, std::string> fixed;
    for (const std::string& axis : per) {
      auto it = p.key.axes.find(axis);
      fixed[axis] = it == p.key.axes.end() ? "" : it->second;
    }
    groups[{p.key.workload, fixed}].push_back(p);
  }
  std::vector<ParetoGroup> out;
  for (auto& [id, members] : groups) {
    std::stable_sort(members.begin(), members.end(),
                     [](const ConfigPoint& a, const ConfigPoint& b) { return a.time_s < b.time_s; });
    std::vector<TimeEnergy> te;
    for (const ConfigPoint& p : members) te.push_back({p.time_s, *p.energy_j});
    ParetoGroup g{id.first, id.second, std::move(members), pareto_front(te)};
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace jetchar::analysis
