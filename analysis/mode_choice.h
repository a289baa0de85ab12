// Choosing a configuration (power mode, and any other swept axis) from measured or predicted points:
// least energy under a time budget, least time under a power or energy budget, or least Zeus cost.
// Inference points weigh the speed and energy they were aggregated with (ConfigPoint::query_speed,
// query_energy): least J/query or J/sample under a latency or throughput bound, and "time" a
// query's latency or the time per sample.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_groups.h"
#include "analysis/config_point.h"

namespace jetchar::analysis {

/// Zeus's cost metric (zeus/utils/metric.py): eta·E + (1 − eta)·P_max·T. eta = 1 is pure energy,
/// eta = 0 pure time (weighted by the maximum power so both terms are joules).
double zeus_cost(double energy_j, double time_s, double eta, double max_power_w);

struct Budget {
  /// kMaxTime judges training configurations (epoch time), kMaxLatency and kMinThroughput
  /// inference ones (the points' query latency, ConfigPoint::query_latency, or their samples/s:
  /// least energy with at least `value` samples/s); the others judge both.
  enum class Kind { kMaxTime, kMaxLatency, kMaxPower, kMaxEnergy, kZeusCost, kMinThroughput };

  Budget() = default;
  Budget(Kind budget_kind, double budget_value, std::optional<double> zeus_max_power_w = std::nullopt)
      : kind(budget_kind), value(budget_value), max_power_w(zeus_max_power_w) {}

  Kind kind = Kind::kMaxTime;
  double value = 0;                   ///< seconds, watts, joules, or eta in [0, 1]
  std::optional<double> max_power_w;  ///< Zeus P_max; default: the largest power among the points
  /// Inference only: a point must also serve at least this many samples/s.
  std::optional<double> min_throughput;
  /// How describe() names the energy an inference budget minimises (the points carry their own).
  QueryEnergy query_energy = QueryEnergy::kPerQuery;

  /// Whether the budget judges `p` at all (kMaxTime: training, kMaxLatency and kMinThroughput:
  /// inference points).
  bool judges(const ConfigPoint& p) const;

  std::string describe() const;
};

struct Choice {
  std::size_t index = 0;  ///< into the points given
  double objective = 0;   ///< energy (J), time (s), or Zeus cost (J); per query or sample for inference
};

/// The best point under `budget`, or nullopt when no point meets it. Points without energy (and
/// without power, for a power budget) cannot be judged and are skipped. Ties go to the point that is
/// better in the other objective, then to the lower index. Throws std::invalid_argument for a
/// negative budget or eta outside [0, 1].
std::optional<Choice> choose(std::span<const ConfigPoint> points, const Budget& budget);

/// A group's answer: the configuration chosen among its points, or nullopt when none meets the
/// budget.
struct GroupChoice {
  ConfigGroup group;
  std::optional<Choice> choice;  ///< index into group.points
};

/// choose() within each group of `points` (group_configurations over `per`) that the budget judges.
/// Points without energy stay in their group, so a power budget can still judge them.
std::vector<GroupChoice> choose_per_group(std::span<const ConfigPoint> points, const std::vector<std::string>& per,
                                          const Budget& budget);

}  // namespace jetchar::analysis
