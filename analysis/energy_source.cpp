#include "analysis/energy_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "analysis/board_comparison.h"

namespace jetchar::analysis {

std::string_view to_string(EnergySource source) { return source == EnergySource::kMeter ? "meter" : "board"; }

std::optional<EnergySource> parse_energy_source(std::string_view text) {
  if (text == "board") return EnergySource::kBoard;
  if (text == "meter") return EnergySource::kMeter;
  return std::nullopt;
}

namespace {

std::optional<double> metric(const RunRecord& record, const char* name) {
  const auto found = record.metrics.find(name);
  return found == record.metrics.end() ? std::nullopt : std::optional<double>(found->second);
}

}  // namespace

void use_energy_source(std::vector<RunRecord>& records, EnergySource source) {
  if (source == EnergySource::kBoard) return;
  const bool any = std::any_of(records.begin(), records.end(), [](const RunRecord& r) {
    return r.status == RunStatus::kOk && r.metrics.contains("meter_energy_j");
  });
  if (!any) {
    throw std::invalid_argument(
        "--energy meter: no OK run of these results has an external meter's energy (a spec's measurement.meters "
        "records one per epoch); --energy board uses the boards' own sensors");
  }
  for (RunRecord& r : records) {
    r.epoch_energy_j = metric(r, "meter_energy_j");
    r.avg_power_w = metric(r, "meter_avg_power_w");
    r.metrics.erase("energy_per_query_j");
    if (!r.epoch_energy_j) r.avg_power_w.reset();
  }
}

std::map<std::string, std::set<std::string>> energy_sources_by_kind(const std::vector<RunRecord>& records,
                                                                    EnergySource source) {
  std::map<std::string, std::set<std::string>> sources;
  for (const RunRecord& r : records) {
    auto& names = sources[board_kind_of(r)];
    if (source == EnergySource::kMeter) {
      if (r.meter && r.metrics.contains("meter_energy_j")) names.insert("meter " + *r.meter);
    } else if (r.energy_source) {
      names.insert(*r.energy_source);
    }
  }
  for (auto& [kind, names] : sources) {
    if (names.empty()) names.insert("not measured");
  }
  return sources;
}

std::string energy_sources_text(const std::map<std::string, std::set<std::string>>& sources) {
  std::vector<std::string> parts;
  for (const auto& [kind, names] : sources) parts.push_back(fmt::format("{}: {}", kind, fmt::join(names, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace jetchar::analysis
