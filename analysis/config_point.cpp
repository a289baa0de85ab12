#include "analysis/config_point.h"

#include <map>

#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

std::optional<double> median_of(const std::vector<const RunRecord*>& rows,
                                std::optional<double> (*get)(const RunRecord&)) {
  std::vector<double> values;
  for (const RunRecord* r : rows) {
    if (auto v = get(*r)) values.push_back(*v);
  }
  if (values.empty()) return std::nullopt;
  return median(values);
}

}  // namespace

std::optional<double> record_energy_j(const RunRecord& record) {
  if (record.epoch_energy_j) return record.epoch_energy_j;
  if (record.avg_power_w && record.epoch_time_s) return *record.avg_power_w * *record.epoch_time_s;
  return std::nullopt;
}

std::vector<ConfigPoint> aggregate(const std::vector<RunRecord>& records, const AggregateOptions& options) {
  std::map<ConfigKey, std::vector<const RunRecord*>> groups;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk || !r.epoch_time_s) continue;
    groups[config_key(r)].push_back(&r);
  }
  std::vector<ConfigPoint> points;
  for (auto& [key, rows] : groups) {
    if (options.skip_cold_epoch) {
      bool has_warm = false;
      for (const RunRecord* r : rows) has_warm |= r->epoch.value_or(0) > 0;
      if (has_warm) std::erase_if(rows, [](const RunRecord* r) { return r->epoch && *r->epoch == 0; });
    }
    ConfigPoint p;
    p.key = key;
    p.samples = rows.size();
    p.time_s = *median_of(rows, [](const RunRecord& r) { return r.epoch_time_s; });
    p.energy_j = median_of(rows, record_energy_j);
    p.power_w = median_of(rows, [](const RunRecord& r) { return r.power_w(); });
    p.stall_s = median_of(rows, [](const RunRecord& r) { return r.stall_s; });
    p.compute_s = median_of(rows, [](const RunRecord& r) { return r.compute_s; });
    p.latency.avg = median_of(rows, [](const RunRecord& r) { return r.latency.avg; });
    p.latency.p50 = median_of(rows, [](const RunRecord& r) { return r.latency.p50; });
    p.latency.p90 = median_of(rows, [](const RunRecord& r) { return r.latency.p90; });
    p.latency.p95 = median_of(rows, [](const RunRecord& r) { return r.latency.p95; });
    p.latency.p99 = median_of(rows, [](const RunRecord& r) { return r.latency.p99; });
    p.latency.max = median_of(rows, [](const RunRecord& r) { return r.latency.max; });
    p.throughput_samples_per_s = median_of(rows, [](const RunRecord& r) { return r.throughput_samples_per_s; });
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace jetchar::analysis
