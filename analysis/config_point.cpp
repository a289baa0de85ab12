#include "analysis/config_point.h"

#include <fmt/format.h>

#include <algorithm>
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

std::optional<double> energy_per_query_j(const RunRecord& record) {
  const auto it = record.metrics.find("energy_per_query_j");  // the results export's column
  return it == record.metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

std::optional<double> energy_per_query_sample_j(const RunRecord& record) {
  const auto it = record.metrics.find("energy_per_query_sample_j");  // the results export's column
  return it == record.metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

std::optional<double> query_energy_j(const RunRecord& record, QueryEnergy energy) {
  return energy == QueryEnergy::kPerSample ? energy_per_query_sample_j(record) : energy_per_query_j(record);
}

std::optional<double> query_latency_s(const ConfigPoint& p) {
  if (!p.query_latency) return std::nullopt;
  if (p.query_speed == QuerySpeed::kLatency) return p.time_s;
  const auto ms = p.latency.at(*p.query_latency);
  return ms ? std::optional<double>(*ms / 1000) : std::nullopt;
}

std::vector<ConfigPoint> at_mean_latency(std::span<const ConfigPoint> points) {
  std::vector<ConfigPoint> out;
  for (const ConfigPoint& p : points) {
    if (!p.query_latency || p.query_speed != QuerySpeed::kLatency || p.query_energy != QueryEnergy::kPerQuery ||
        !p.latency.avg || !(*p.latency.avg > 0)) {
      return {};
    }
    out.push_back(p);
    out.back().query_latency = LatencyPercentile::kAvg;
    out.back().time_s = *p.latency.avg / 1000;
  }
  return out;
}

std::string time_header(const ConfigPoint& p) {
  if (!p.query_latency) return "time_s";
  return p.query_speed == QuerySpeed::kThroughput ? "samples/s" : fmt::format("{}_ms", to_string(*p.query_latency));
}

std::string energy_header(const ConfigPoint& p) {
  if (!p.query_latency) return "energy_j";
  return p.query_energy == QueryEnergy::kPerSample ? "J/sample" : "J/query";
}

double time_value(const ConfigPoint& p) {
  if (!p.query_latency) return p.time_s;
  return p.query_speed == QuerySpeed::kThroughput ? 1 / p.time_s : 1000 * p.time_s;
}

namespace {

// Each latency column's median, and the throughput's, over `rows` (training and inference alike).
void add_latency_medians(const std::vector<const RunRecord*>& rows, ConfigPoint& p) {
  p.latency.avg = median_of(rows, [](const RunRecord& r) { return r.latency.avg; });
  p.latency.p50 = median_of(rows, [](const RunRecord& r) { return r.latency.p50; });
  p.latency.p90 = median_of(rows, [](const RunRecord& r) { return r.latency.p90; });
  p.latency.p95 = median_of(rows, [](const RunRecord& r) { return r.latency.p95; });
  p.latency.p99 = median_of(rows, [](const RunRecord& r) { return r.latency.p99; });
  p.latency.max = median_of(rows, [](const RunRecord& r) { return r.latency.max; });
  p.throughput_samples_per_s = median_of(rows, [](const RunRecord& r) { return r.throughput_samples_per_s; });
}

// Whether an inference record has what `options` judge it by: the latency, and a throughput when
// that is its speed.
bool has_query_speed(const RunRecord& r, const AggregateOptions& options) {
  if (!r.latency.at(options.latency)) return false;
  return options.speed == QuerySpeed::kLatency || r.throughput_samples_per_s.value_or(0) > 0;
}

// An inference configuration: its runs' medians of one latency (or the throughput) and of energy
// per query (or per sample).
ConfigPoint query_point(const ConfigKey& key, const std::vector<const RunRecord*>& rows,
                        const AggregateOptions& options) {
  ConfigPoint p;
  p.key = key;
  p.query_latency = options.latency;
  p.query_speed = options.speed;
  p.query_energy = options.energy;
  p.samples = rows.size();
  std::vector<double> times, throughputs, energies, powers;
  for (const RunRecord* r : rows) {
    times.push_back(*r->latency.at(options.latency) / 1000);
    if (r->throughput_samples_per_s) throughputs.push_back(*r->throughput_samples_per_s);
    if (const auto energy = query_energy_j(*r, options.energy)) energies.push_back(*energy);
    // Power is the same whichever energy is judged: a query's energy over its mean latency.
    const auto per_query = energy_per_query_j(*r);
    if (per_query && r->latency.avg && *r->latency.avg > 0) powers.push_back(*per_query / (*r->latency.avg / 1000));
  }
  p.time_s = options.speed == QuerySpeed::kThroughput ? 1 / median(throughputs) : median(times);
  if (!energies.empty()) p.energy_j = median(energies);
  if (!powers.empty()) p.power_w = median(powers);
  add_latency_medians(rows, p);
  return p;
}

}  // namespace

std::vector<ConfigPoint> aggregate(const std::vector<RunRecord>& records, const AggregateOptions& options) {
  std::map<ConfigKey, std::vector<const RunRecord*>> groups, queries;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk) continue;
    if (r.epoch_time_s) {
      groups[config_key(r)].push_back(&r);
    } else if (has_query_speed(r, options)) {
      queries[config_key(r)].push_back(&r);
    }
  }
  std::vector<ConfigPoint> points;
  for (const auto& [key, rows] : queries) {
    // A configuration with epochs is a training one; its rows without are not its queries.
    if (!groups.contains(key)) points.push_back(query_point(key, rows, options));
  }
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
    add_latency_medians(rows, p);
    points.push_back(std::move(p));
  }
  std::sort(points.begin(), points.end(), [](const ConfigPoint& a, const ConfigPoint& b) { return a.key < b.key; });
  return points;
}

}  // namespace jetchar::analysis
