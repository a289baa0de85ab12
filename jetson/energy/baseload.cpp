#include "jetson/energy/baseload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace jetchar::jetson::energy {

TotalDefinition total_definition(const PowerTrace& trace) {
  TotalDefinition total;
  for (std::size_t i = 0; i < trace.channel_count(); ++i) {
    if (trace.channel(i).role == RailRole::kBoardInput) total.channels.push_back(i);
  }
  if (!total.channels.empty()) {
    total.source = TotalDefinition::Source::kBoardInput;
  } else {
    for (std::size_t i = 0; i < trace.channel_count(); ++i) {
      if (trace.channel(i).role == RailRole::kModule) total.channels.push_back(i);
    }
    if (!total.channels.empty()) total.source = TotalDefinition::Source::kModuleSum;
  }
  std::string names;
  for (std::size_t i : total.channels) names += (names.empty() ? "" : " + ") + trace.channel(i).name;
  switch (total.source) {
    case TotalDefinition::Source::kBoardInput: total.label = "board input " + names; break;
    case TotalDefinition::Source::kModuleSum: total.label = "sum of module rails (" + names + ")"; break;
    case TotalDefinition::Source::kNone: total.label = "no total (no board input or module rail)"; break;
  }
  return total;
}

std::optional<double> Baseload::rail_power_mw(const std::string& name) const {
  for (const auto& rail : rails) {
    if (rail.name == name) return rail.mean_power_mw;
  }
  return std::nullopt;
}

Baseload measure_baseload(const PowerTrace& trace, std::int64_t begin_ns, std::int64_t end_ns, Integration method) {
  if (end_ns <= begin_ns) {
    throw std::invalid_argument(fmt::format(
        "baseload: window [{} ns, {} ns] is empty; measure idle power over a positive duration", begin_ns, end_ns));
  }
  Baseload result;
  result.begin_ns = begin_ns;
  result.end_ns = end_ns;
  result.total = total_definition(trace);
  const auto& times = trace.times_ns();
  for (std::size_t c = 0; c < trace.channel_count(); ++c) {
    RailBaseload rail;
    rail.name = trace.channel(c).name;
    rail.role = trace.channel(c).role;
    const ChannelEnergy energy = integrate(trace, c, begin_ns, end_ns, method);
    if (energy.energy_mj && energy.covered_ns > 0) {
      rail.mean_power_mw = *energy.energy_mj * 1e9 / static_cast<double>(energy.covered_ns);
    }
    double sum = 0.0;
    double sum_sq = 0.0;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      if (times[i] < begin_ns || times[i] > end_ns) continue;
      const auto p = trace.power_mw(c, i);
      if (!p) continue;
      ++rail.samples;
      sum += *p;
      sum_sq += *p * *p;
      rail.min_mw = rail.min_mw ? std::min(*rail.min_mw, *p) : *p;
      rail.max_mw = rail.max_mw ? std::max(*rail.max_mw, *p) : *p;
    }
    if (rail.samples > 0) {
      const double n = static_cast<double>(rail.samples);
      const double mean = sum / n;
      rail.stddev_mw = std::sqrt(std::max(0.0, sum_sq / n - mean * mean));
    }
    result.rails.push_back(std::move(rail));
  }
  if (!result.total.channels.empty()) {
    double total = 0.0;
    bool complete = true;
    for (std::size_t c : result.total.channels) {
      if (!result.rails[c].mean_power_mw) complete = false;
      else total += *result.rails[c].mean_power_mw;
    }
    if (complete) result.total_power_mw = total;
  }
  return result;
}

}  // namespace jetchar::jetson::energy
