#include "analysis/variability.h"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "analysis/config_point.h"

namespace jetchar::analysis {
namespace {

struct Sample {
  double time_s;
  std::optional<double> energy_j;
};

using RunKey = std::tuple<ConfigKey, std::string, int>;  // config, device, repetition

// Epoch rows of one run collapse to their median; a run-summary row (no epoch) stands for itself.
std::map<RunKey, std::vector<const RunRecord*>> runs_of(const std::vector<RunRecord>& records) {
  std::map<RunKey, std::vector<const RunRecord*>> runs;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk || !r.epoch_time_s) continue;
    runs[{config_key(r), r.device.value_or(""), r.repetition.value_or(0)}].push_back(&r);
  }
  for (auto& [key, rows] : runs) {
    bool has_warm = false;
    for (const RunRecord* r : rows) has_warm |= r->epoch.value_or(0) > 0;
    if (has_warm) std::erase_if(rows, [](const RunRecord* r) { return r->epoch && *r->epoch == 0; });
  }
  return runs;
}

Sample median_sample(const std::vector<const RunRecord*>& rows) {
  std::vector<double> times, energies;
  for (const RunRecord* r : rows) {
    times.push_back(*r->epoch_time_s);
    if (auto e = record_energy_j(*r)) energies.push_back(*e);
  }
  Sample s{median(times), std::nullopt};
  if (energies.size() == rows.size()) s.energy_j = median(energies);
  return s;
}

VariabilityRow summarise(const ConfigKey& key, std::string group, const std::vector<Sample>& samples,
                         const BootstrapOptions& bootstrap) {
  std::vector<double> times, energies;
  for (const Sample& s : samples) {
    times.push_back(s.time_s);
    if (s.energy_j) energies.push_back(*s.energy_j);
  }
  VariabilityRow row{key, std::move(group), summarize(times), std::nullopt, std::nullopt};
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
                                        const BootstrapOptions& bootstrap) {
  auto runs = runs_of(records);
  std::vector<VariabilityRow> rows;
  if (level == VariabilityLevel::kEpochs) {
    for (const auto& [key, run_rows] : runs) {
      std::vector<Sample> samples;
      for (const RunRecord* r : run_rows) samples.push_back({*r->epoch_time_s, record_energy_j(*r)});
      const auto& [config, device, rep] = key;
      rows.push_back(
          summarise(config, fmt::format("device={} rep={}", device.empty() ? "-" : device, rep), samples, bootstrap));
    }
    return rows;
  }
  // Per (config, device): one sample per repetition.
  std::map<std::pair<ConfigKey, std::string>, std::vector<Sample>> per_device;
  for (const auto& [key, run_rows] : runs) {
    const auto& [config, device, rep] = key;
    per_device[{config, device}].push_back(median_sample(run_rows));
  }
  if (level == VariabilityLevel::kRepetitions) {
    for (const auto& [key, samples] : per_device) {
      rows.push_back(
          summarise(key.first, fmt::format("device={}", key.second.empty() ? "-" : key.second), samples, bootstrap));
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
  for (const auto& [config, samples] : per_config) rows.push_back(summarise(config, "", samples, bootstrap));
  return rows;
}

}  // namespace jetchar::analysis
