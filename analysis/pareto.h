// Pareto fronts of (epoch time, epoch energy): the configurations no other one beats on both.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/config_groups.h"
#include "analysis/config_point.h"

namespace jetchar::analysis {

struct TimeEnergy {
  double time_s = 0;
  double energy_j = 0;
};

/// True when `a` is no worse than `b` in both and better in one (both minimised).
bool dominates(const TimeEnergy& a, const TimeEnergy& b);

/// Indices of the non-dominated points, sorted by time (then energy, then index). Equal points are
/// all kept: neither dominates the other. O(n log n).
std::vector<std::size_t> pareto_front(std::span<const TimeEnergy> points);

/// Configurations of one workload that share the values of the `per` axes, with their front over
/// everything else (power modes and the remaining swept axes).
struct ParetoGroup : ConfigGroup {
  std::vector<std::size_t> front;  ///< indices into points (which are sorted by time), sorted by time
};

/// Groups `points` by workload and by the values of the axes named in `per` (an axis a point lacks
/// counts as the value ""). Points without energy are left out.
std::vector<ParetoGroup> pareto_groups(const std::vector<ConfigPoint>& points,
                                       const std::vector<std::string>& per = {});

}  // namespace jetchar::analysis
