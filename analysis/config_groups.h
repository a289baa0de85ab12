// Configurations side by side: the groups a Pareto front or a choice is taken within (one
// workload at one value of each `per` axis), and which of their axes tell them apart.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"

namespace jetchar::analysis {

/// Configurations of one workload that share the values of the `per` axes.
struct ConfigGroup {
  std::string workload;
  std::map<std::string, std::string> fixed;  ///< the `per` axes and their values
  std::vector<ConfigPoint> points;
  std::optional<LatencyPercentile> query_latency;  ///< the points' (ConfigPoint::query_latency)

  /// "resnet18 batch=16": the workload ("inference" after it for a group of inference points) and
  /// the fixed axes.
  std::string label() const;
};

/// Groups `points` by workload, training or inference, and by the values of the axes named in `per`
/// (an axis a point lacks counts as the value ""), sorted by workload, then values; each group
/// keeps its points' order.
std::vector<ConfigGroup> group_configurations(std::span<const ConfigPoint> points, const std::vector<std::string>& per);

/// Every axis any point records.
std::set<std::string> recorded_axes(std::span<const ConfigPoint> points);

/// The axes that take more than one value among `points`, or that some point lacks: the only ones
/// worth printing beside a configuration (a sweep records every resolved setting, most of them
/// constant).
std::set<std::string> varying_axes(std::span<const ConfigPoint> points);
std::set<std::string> varying_axes(std::span<const ConfigKey> keys);

/// "axis=value ..." for the axes of `key` in `shown` ("" when none).
std::string axes_label(const ConfigKey& key, const std::set<std::string>& shown);
/// ConfigKey::label() with the axes in `shown` only: "resnet18 | MAXN | batch=16".
std::string config_label(const ConfigKey& key, const std::set<std::string>& shown);

/// `per` with "board" first when the points carry that axis (a merged fleet of several board
/// kinds, analysis/results_store_reader.h): fronts and choices are then per kind, since one kind's
/// power mode is not another's.
std::vector<std::string> per_board_kind(std::span<const ConfigPoint> points, std::vector<std::string> per);

}  // namespace jetchar::analysis
