#include "analysis/config_groups.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

namespace jetchar::analysis {

std::string ConfigGroup::label() const {
  std::string out = workload;
  if (query_latency) out += " inference";
  for (const auto& [axis, value] : fixed) out += " " + axis + "=" + value;
  return out;
}

std::vector<ConfigGroup> group_configurations(std::span<const ConfigPoint> points,
                                              const std::vector<std::string>& per) {
  // Training and inference configurations are never compared: an epoch time is not a latency.
  using GroupId = std::tuple<std::string, std::optional<LatencyPercentile>, std::map<std::string, std::string>>;
  std::map<GroupId, std::vector<ConfigPoint>> groups;
  for (const ConfigPoint& p : points) {
    std::map<std::string, std::string> fixed;
    for (const std::string& axis : per) {
      const auto it = p.key.axes.find(axis);
      fixed[axis] = it == p.key.axes.end() ? "" : it->second;
    }
    groups[{p.key.workload, p.query_latency, std::move(fixed)}].push_back(p);
  }
  std::vector<ConfigGroup> out;
  out.reserve(groups.size());
  for (auto& [id, members] : groups)
    out.push_back({std::get<0>(id), std::get<2>(id), std::move(members), std::get<1>(id)});
  return out;
}

std::set<std::string> recorded_axes(std::span<const ConfigPoint> points) {
  std::set<std::string> axes;
  for (const auto& p : points) {
    for (const auto& [axis, value] : p.key.axes) axes.insert(axis);
  }
  return axes;
}

std::set<std::string> varying_axes(std::span<const ConfigKey> keys) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& key : keys) {
    for (const auto& [axis, value] : key.axes) values[axis].insert(value);
  }
  std::set<std::string> varying;
  for (const auto& entry : values) {
    // A named reference, not a structured binding: clang 14 (clang-tidy) cannot capture those.
    const std::string& axis = entry.first;
    if (entry.second.size() > 1 ||
        std::any_of(keys.begin(), keys.end(), [&](const ConfigKey& key) { return !key.axes.contains(axis); })) {
      varying.insert(axis);
    }
  }
  return varying;
}

std::set<std::string> varying_axes(std::span<const ConfigPoint> points) {
  std::vector<ConfigKey> keys;
  keys.reserve(points.size());
  for (const auto& p : points) keys.push_back(p.key);
  return varying_axes(keys);
}

std::string axes_label(const ConfigKey& key, const std::set<std::string>& shown) {
  std::string label;
  for (const auto& [axis, value] : key.axes) {
    if (shown.contains(axis)) label += (label.empty() ? "" : " ") + axis + "=" + value;
  }
  return label;
}

std::string config_label(const ConfigKey& key, const std::set<std::string>& shown) {
  std::string label = key.workload + " | " + key.mode.label();
  if (const std::string axes = axes_label(key, shown); !axes.empty()) label += " | " + axes;
  return label;
}

std::vector<std::string> per_board_kind(std::span<const ConfigPoint> points, std::vector<std::string> per) {
  const bool kinds =
      std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return p.key.axes.contains("board"); });
  if (kinds && std::find(per.begin(), per.end(), "board") == per.end()) per.insert(per.begin(), "board");
  return per;
}

}  // namespace jetchar::analysis
