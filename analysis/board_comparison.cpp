#include "analysis/board_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>

namespace jetchar::analysis {
namespace {

// Settings that a board resolves for itself, and so differ between kinds running one configuration.
constexpr std::array<const char*, 2> kBoardResolved = {"board", "threads"};

ConfigKey configuration_of(const ConfigKey& key) {
  ConfigKey out{key.workload, {}, key.axes};
  for (const char* axis : kBoardResolved) out.axes.erase(axis);
  return out;
}

bool less_energy(const ConfigPoint& a, const ConfigPoint& b) {
  if (a.energy_j.has_value() != b.energy_j.has_value()) return a.energy_j.has_value();
  return a.energy_j ? *a.energy_j < *b.energy_j : a.time_s < b.time_s;
}

}  // namespace

std::string board_kind_of(const RunRecord& record) { return record.board.value_or(record.device.value_or("")); }

std::vector<BoardComparison> compare_boards(const std::vector<RunRecord>& records, const ComparisonOptions& options) {
  std::map<std::string, std::vector<RunRecord>> by_kind;
  for (const RunRecord& r : records) by_kind[board_kind_of(r)].push_back(r);
  if (options.baseline && !by_kind.contains(*options.baseline)) {
    std::string kinds;
    for (const auto& entry : by_kind) kinds += (kinds.empty() ? "'" : ", '") + entry.first + "'";
    throw std::invalid_argument(
        fmt::format("--baseline '{}' measured nothing here; the board kinds are {}", *options.baseline, kinds));
  }
  // configuration -> kind -> its points (one per power mode)
  std::map<ConfigKey, std::map<std::string, std::vector<ConfigPoint>>> configurations;
  for (const auto& [kind, rows] : by_kind) {
    for (ConfigPoint& p : aggregate(rows, options.aggregate)) {
      configurations[configuration_of(p.key)][kind].push_back(std::move(p));
    }
  }
  std::vector<BoardComparison> out;
  for (auto& [key, kinds] : configurations) {
    if (kinds.size() < 2) continue;
    const std::string baseline =
        options.baseline && kinds.contains(*options.baseline) ? *options.baseline : kinds.begin()->first;
    if (!kinds.contains(baseline)) continue;
    BoardComparison comparison{key, {}};
    for (const auto& [kind, points] : kinds) {
      KindFigures f;
      f.kind = kind;
      f.modes = points.size();
      f.fastest = *std::min_element(points.begin(), points.end(),
                                    [](const ConfigPoint& a, const ConfigPoint& b) { return a.time_s < b.time_s; });
      f.least_energy = *std::min_element(points.begin(), points.end(), less_energy);
      comparison.kinds.push_back(std::move(f));
    }
    std::stable_partition(comparison.kinds.begin(), comparison.kinds.end(),
                          [&](const KindFigures& f) { return f.kind == baseline; });
    const KindFigures& base = comparison.kinds.front();
    for (KindFigures& f : comparison.kinds) {
      f.speedup = base.fastest.time_s / f.fastest.time_s;
      if (base.least_energy.energy_j && f.least_energy.energy_j && *base.least_energy.energy_j > 0) {
        f.energy_ratio = *f.least_energy.energy_j / *base.least_energy.energy_j;
        if (*f.energy_ratio > 0) f.perf_per_watt_ratio = 1 / *f.energy_ratio;
      }
    }
    out.push_back(std::move(comparison));
  }
  return out;
}

}  // namespace jetchar::analysis
