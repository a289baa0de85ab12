#include "analysis/mode_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "analysis/pareto.h"

namespace jetchar::analysis {

double zeus_cost(double energy_j, double time_s, double eta, double max_power_w) {
  return eta * energy_j + (1 - eta) * max_power_w * time_s;
}

bool Budget::judges(const ConfigPoint& p) const {
  if (kind == Kind::kMaxTime) return !p.query_latency;
  if (kind == Kind::kMaxLatency || kind == Kind::kMinThroughput) return p.query_latency.has_value();
  return true;
}

std::string Budget::describe() const {
  const std::string throughput = min_throughput ? fmt::format(" and >= {:g} samples/s", *min_throughput) : "";
  switch (kind) {
    case Kind::kMaxTime: return fmt::format("least energy with epoch time <= {:g} s", value);
    case Kind::kMaxLatency:
      return fmt::format("least energy per {} with query latency <= {:g} ms{}", to_string(query_energy), 1000 * value,
                         throughput);
    case Kind::kMinThroughput:
      return fmt::format("least energy per {} with >= {:g} samples/s", to_string(query_energy), value);
    case Kind::kMaxPower: return fmt::format("least time with average power <= {:g} W", value);
    case Kind::kMaxEnergy: return fmt::format("least time with epoch energy <= {:g} J", value);
    case Kind::kZeusCost:
      return max_power_w ? fmt::format("least Zeus cost, eta = {:g}, P_max = {:g} W", value, *max_power_w)
                         : fmt::format("least Zeus cost, eta = {:g}, P_max = largest measured power", value);
  }
  return "?";
}

std::optional<Choice> choose(std::span<const ConfigPoint> points, const Budget& budget) {
  using Kind = Budget::Kind;
  if (!(budget.value >= 0)) throw std::invalid_argument(fmt::format("budget {} must be >= 0", budget.value));
  if (budget.kind == Kind::kZeusCost && budget.value > 1) {
    throw std::invalid_argument(fmt::format("Zeus eta {} must lie in [0, 1]", budget.value));
  }
  if (budget.max_power_w && !(*budget.max_power_w > 0)) {
    throw std::invalid_argument(fmt::format("maximum power {} W must be > 0", *budget.max_power_w));
  }

  // Objective, tie-breaker and feasibility of one point; nullopt when it cannot be judged.
  struct Score {
    double objective, tie;
  };
  double max_power = budget.max_power_w.value_or(0);
  if (budget.kind == Kind::kZeusCost && !budget.max_power_w) {
    for (const ConfigPoint& p : points) {
      if (p.power_w && *p.power_w > max_power) max_power = *p.power_w;
    }
  }
  auto score = [&](const ConfigPoint& p) -> std::optional<Score> {
    if (!budget.judges(p)) return std::nullopt;
    if (budget.min_throughput && !(p.throughput_samples_per_s >= *budget.min_throughput)) return std::nullopt;
    switch (budget.kind) {
      case Kind::kMaxTime:
        if (!p.energy_j || p.time_s > budget.value) return std::nullopt;
        return Score{*p.energy_j, p.time_s};
      case Kind::kMaxLatency: {
        // The bound is on the latency, whichever speed the point's time_s is.
        const auto latency_s = query_latency_s(p);
        if (!p.energy_j || !latency_s || *latency_s > budget.value) return std::nullopt;
        return Score{*p.energy_j, p.time_s};
      }
      case Kind::kMinThroughput:
        if (!p.energy_j || !(p.throughput_samples_per_s >= budget.value)) return std::nullopt;
        return Score{*p.energy_j, p.time_s};
      case Kind::kMaxEnergy:
        if (!p.energy_j || *p.energy_j > budget.value) return std::nullopt;
        return Score{p.time_s, *p.energy_j};
      case Kind::kMaxPower:
        if (!p.power_w || *p.power_w > budget.value) return std::nullopt;
        return Score{p.time_s, p.energy_j.value_or(0)};
      case Kind::kZeusCost:
        if (!p.energy_j) return std::nullopt;
        return Score{zeus_cost(*p.energy_j, p.time_s, budget.value, max_power), p.time_s};
    }
    return std::nullopt;
  };

  // Least energy under a time budget, least time under an energy budget and least Zeus cost all
  // lie on the (time, energy) front: a point dominating a feasible one is feasible and no worse.
  // A power budget does not (a dominated point can draw less power), nor does a throughput floor
  // (a dominated point can serve more samples), nor a latency bound where the front's time is the
  // time per sample (a dominated point can answer sooner), so they scan every point.
  const bool latency_off_front =
      budget.kind == Kind::kMaxLatency && std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) {
        return p.query_speed != QuerySpeed::kLatency;
      });
  std::vector<std::size_t> candidates;
  if (budget.kind == Kind::kMaxPower || budget.kind == Kind::kMinThroughput || budget.min_throughput ||
      latency_off_front) {
    for (std::size_t i = 0; i < points.size(); ++i) candidates.push_back(i);
  } else {
    std::vector<TimeEnergy> te;
    std::vector<std::size_t> with_energy;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!points[i].energy_j) continue;
      te.push_back({points[i].time_s, *points[i].energy_j});
      with_energy.push_back(i);
    }
    for (std::size_t f : pareto_front(te)) candidates.push_back(with_energy[f]);
  }

  std::optional<Choice> best;
  std::optional<Score> best_score;
  for (std::size_t i : candidates) {
    auto s = score(points[i]);
    if (!s) continue;
    bool better = !best_score || s->objective < best_score->objective ||
                  (s->objective == best_score->objective &&
                   (s->tie < best_score->tie || (s->tie == best_score->tie && i < best->index)));
    if (better) {
      best = Choice{i, s->objective};
      best_score = s;
    }
  }
  return best;
}

std::vector<GroupChoice> choose_per_group(std::span<const ConfigPoint> points, const std::vector<std::string>& per,
                                          const Budget& budget) {
  std::vector<GroupChoice> out;
  for (auto& group : group_configurations(points, per)) {
    if (group.points.empty() || !budget.judges(group.points.front())) continue;
    auto choice = choose(group.points, budget);
    out.push_back({std::move(group), choice});
  }
  return out;
}

}  // namespace jetchar::analysis
