#include "analysis/variability.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "analysis/config_point.h"

namespace jetchar::analysis {
namespace {

struct Sample {
  double time_s;
  std::optional<double> energy_j;
};

using RunKey = std::tuple<ConfigKey, std::string, int>;  // config, device, repetition

// A record's sample: its epoch's time and energy, or an inference run's latency (s) or throughput
// and its energy per query or sample; nullopt when it has neither.
std::optional<Sample> sample_of(const RunRecord& r, const QueryMeasures& queries) {
  if (r.epoch_time_s) return Sample{*r.epoch_time_s, record_energy_j(r)};
  const auto ms = r.latency.at(queries.latency);
  if (!ms) return std::nullopt;
  const auto energy = query_energy_j(r, queries.energy);
  if (queries.speed == QuerySpeed::kLatency) return Sample{*ms / 1000, energy};
  if (r.throughput_samples_per_s) return Sample{*r.throughput_samples_per_s, energy};
  return std::nullopt;
}

// Epoch rows of one run collapse to their median; a run-summary row (no epoch) stands for itself.
// A configuration with epochs is a training one: its rows without (none in a sweep's store) are
// left out, as aggregate() does.
std::map<RunKey, std::vector<const RunRecord*>> runs_of(const std::vector<RunRecord>& records,
                                                        const QueryMeasures& queries) {
  std::set<ConfigKey> trained;
  for (const RunRecord& r : records) {
    if (r.status == RunStatus::kOk && r.epoch_time_s) trained.insert(config_key(r));
  }
  std::map<RunKey, std::vector<const RunRecord*>> runs;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk || !sample_of(r, queries)) continue;
    if (!r.epoch_time_s && trained.contains(config_key(r))) continue;
    runs[{config_key(r), r.device.value_or(""), r.repetition.value_or(0)}].push_back(&r);
  }
  for (auto& [key, rows] : runs) {
    bool has_warm = false;
    for (const RunRecord* r : rows) has_warm |= r->epoch.value_or(0) > 0;
    if (has_warm) std::erase_if(rows, [](const RunRecord* r) { return r->epoch && *r->epoch == 0; });
  }
  return runs;
}

Sample median_sample(const std::vector<const RunRecord*>& rows, const QueryMeasures& queries) {
  std::vector<double> times, energies;
  for (const RunRecord* r : rows) {
    const Sample s = *sample_of(*r, queries);
    times.push_back(s.time_s);
    if (s.energy_j) energies.push_back(*s.energy_j);
  }
  Sample s{median(times), std::nullopt};
  if (energies.size() == rows.size()) s.energy_j = median(energies);
  return s;
}

VariabilityRow summarise(const ConfigKey& key, std::optional<LatencyPercentile> query_latency,
                         const QueryMeasures& queries, std::string group, const std::vector<Sample>& samples,
                         const BootstrapOptions& bootstrap) {
  std::vector<double> times, energies;
  for (const Sample& s : samples) {
    times.push_back(s.time_s);
    if (s.energy_j) energies.push_back(*s.energy_j);
  }
  VariabilityRow row{key,          query_latency, queries.speed, queries.energy, std::move(group), summarize(times),
                     std::nullopt, std::nullopt};
  if (energies.size() == samples.size()) row.energy_j = summarize(energies);
  if (times.size() >= 2) {
    row.time_median_ci = bootstrap_ci(
        times, [](std::span<const double> v) { return median(v); }, bootstrap);
  }
  return row;
}

}  // namespace

std::string_view to_string(VariabilityLevel level) {
  switch (level) {
    case VariabilityLevel::kEpochs: return "epochs";
    case VariabilityLevel::kRepetitions: return "repetitions";
    case VariabilityLevel::kDevices: return "devices";
  }
  return "?";
}

std::vector<VariabilityRow> variability(const std::vector<RunRecord>& records, VariabilityLevel level,
                                        const BootstrapOptions& bootstrap, const QueryMeasures& queries) {
  const auto runs = runs_of(records, queries);
  // Which configurations are inference ones (their runs have no epoch time).
  std::map<ConfigKey, std::optional<LatencyPercentile>> measure;
  for (const auto& [key, run_rows] : runs) {
    measure[std::get<0>(key)] = run_rows.front()->epoch_time_s ? std::nullopt : std::optional(queries.latency);
  }
  std::vector<VariabilityRow> rows;
  if (level == VariabilityLevel::kEpochs) {
    for (const auto& [key, run_rows] : runs) {
      std::vector<Sample> samples;
      for (const RunRecord* r : run_rows) samples.push_back(*sample_of(*r, queries));
      const auto& [config, device, rep] = key;
      rows.push_back(summarise(config, measure[config], queries,
                               fmt::format("device={} rep={}", device.empty() ? "-" : device, rep), samples,
                               bootstrap));
    }
    return rows;
  }
  // Per (config, device): one sample per repetition.
  std::map<std::pair<ConfigKey, std::string>, std::vector<Sample>> per_device;
  for (const auto& [key, run_rows] : runs) {
    const auto& [config, device, rep] = key;
    per_device[{config, device}].push_back(median_sample(run_rows, queries));
  }
  if (level == VariabilityLevel::kRepetitions) {
    for (const auto& [key, samples] : per_device) {
      rows.push_back(summarise(key.first, measure[key.first], queries,
                               fmt::format("device={}", key.second.empty() ? "-" : key.second), samples, bootstrap));
    }
    return rows;
  }
  std::map<ConfigKey, std::vector<Sample>> per_config;
  for (const auto& [key, samples] : per_device) {
    std::vector<double> times, energies;
    for (const Sample& s : samples) {
      times.push_back(s.time_s);
      if (s.energy_j) energies.push_back(*s.energy_j);
    }
    Sample device_sample{median(times), std::nullopt};
    if (energies.size() == samples.size()) device_sample.energy_j = median(energies);
    per_config[key.first].push_back(device_sample);
  }
  for (const auto& [config, samples] : per_config)
    rows.push_back(summarise(config, measure[config], queries, "", samples, bootstrap));
  return rows;
}

std::vector<VariabilityRow> variability(const std::vector<RunRecord>& records, VariabilityLevel level,
                                        const BootstrapOptions& bootstrap, LatencyPercentile latency) {
  return variability(records, level, bootstrap, QueryMeasures{.latency = latency});
}

}  // namespace jetchar::analysis
