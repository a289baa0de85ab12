#include "analysis/scaling.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "analysis/statistics.h"

namespace jetchar::analysis {

namespace {

std::int64_t positive_axis(const RunRecord& record, const std::string& axis) {
  const auto found = record.axes.find(axis);
  if (found == record.axes.end()) return 1;
  try {
    const auto value = std::stoll(found->second);
    if (value >= 1) return value;
    if (value == 0 && found->second == "0") return 1;  // the spec's unset field: one rank
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(
      fmt::format("{}: {} '{}' is not a rank count; valid: a whole number >= 1", record.source, axis, found->second));
}

// The key of `record`'s curve of `kind`: its configuration without the world axes and with the
// batch that kind keeps fixed.
ConfigKey curve_key(const RunRecord& record, ScalingKind kind) {
  ConfigKey key = config_key(record);
  std::erase_if(key.axes, [](const auto& axis) { return is_world_axis(axis.first) || axis.first == "batch"; });
  if (const auto batch = record.axes.find("batch"); batch != record.axes.end()) {
    if (kind == ScalingKind::kWeak) {
      key.axes["batch"] = batch->second;
    } else {
      key.axes["global_batch"] = std::to_string(positive_axis(record, "batch") * world_size_of(record));
    }
  }
  return key;
}

ScalingPoint point_of(std::int64_t world, const std::vector<const RunRecord*>& epochs) {
  std::vector<double> rates, per_sample, times, exposed;
  for (const auto* r : epochs) {
    if (const auto found = r->metrics.find("exposed_communication_s"); found != r->metrics.end())
      exposed.push_back(found->second / *r->epoch_time_s);
    rates.push_back(static_cast<double>(*r->samples) / *r->epoch_time_s);
    times.push_back(*r->epoch_time_s);
    if (r->epoch_energy_j && *r->samples > 0)
      per_sample.push_back(*r->epoch_energy_j / static_cast<double>(*r->samples));
  }
  ScalingPoint point;
  point.world_size = world;
  point.epochs = epochs.size();
  point.samples_per_s = median(rates);
  point.epoch_time_s = median(times);
  if (per_sample.size() == epochs.size()) point.energy_per_sample_j = median(per_sample);
  if (!exposed.empty()) point.exposed_share = median(exposed);
  return point;
}

}  // namespace

std::string_view to_string(ScalingKind kind) { return kind == ScalingKind::kWeak ? "weak" : "strong"; }

bool is_world_axis(const std::string& axis) {
  return axis == "nproc_per_node" || axis == "nnodes" || axis == "backend" || axis == "threads";
}

std::int64_t world_size_of(const RunRecord& record) {
  return positive_axis(record, "nproc_per_node") * positive_axis(record, "nnodes");
}

std::vector<ScalingCurve> scaling_curves(const std::vector<RunRecord>& records) {
  std::vector<ScalingCurve> curves;
  for (const auto kind : {ScalingKind::kWeak, ScalingKind::kStrong}) {
    // key -> world size -> warm epochs (and cold ones, kept apart)
    std::map<ConfigKey, std::map<std::int64_t, std::pair<std::vector<const RunRecord*>, std::vector<const RunRecord*>>>>
        groups;
    for (const auto& r : records) {
      if (r.status != RunStatus::kOk || !r.epoch_time_s || *r.epoch_time_s <= 0 || !r.samples) continue;
      auto& [warm, cold] = groups[curve_key(r, kind)][world_size_of(r)];
      (r.epoch.value_or(1) == 0 ? cold : warm).push_back(&r);
    }
    for (const auto& [key, worlds] : groups) {
      if (worlds.size() < 2) continue;
      ScalingCurve curve{kind, key, {}};
      for (const auto& [world, epochs] : worlds)
        curve.points.push_back(point_of(world, epochs.first.empty() ? epochs.second : epochs.first));
      const auto& first = curve.points.front();
      for (auto& p : curve.points) {
        p.efficiency = (p.samples_per_s / static_cast<double>(p.world_size)) /
                       (first.samples_per_s / static_cast<double>(first.world_size));
      }
      curves.push_back(std::move(curve));
    }
  }
  return curves;
}

}  // namespace jetchar::analysis
