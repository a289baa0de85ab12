#include "analysis/run_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace jetchar::analysis {

namespace {

constexpr std::array<std::pair<LatencyPercentile, std::string_view>, 6> kPercentileNames = {{
    {LatencyPercentile::kAvg, "avg"},
    {LatencyPercentile::kP50, "p50"},
    {LatencyPercentile::kP90, "p90"},
    {LatencyPercentile::kP95, "p95"},
    {LatencyPercentile::kP99, "p99"},
    {LatencyPercentile::kMax, "max"},
}};

}  // namespace

std::string_view to_string(LatencyPercentile percentile) {
  for (const auto& [value, name] : kPercentileNames) {
    if (value == percentile) return name;
  }
  return "?";
}

std::optional<LatencyPercentile> parse_latency_percentile(std::string_view text) {
  for (const auto& [value, name] : kPercentileNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::optional<double> LatencyMs::at(LatencyPercentile percentile) const {
  switch (percentile) {
    case LatencyPercentile::kAvg: return avg;
    case LatencyPercentile::kP50: return p50;
    case LatencyPercentile::kP90: return p90;
    case LatencyPercentile::kP95: return p95;
    case LatencyPercentile::kP99: return p99;
    case LatencyPercentile::kMax: return max;
  }
  return std::nullopt;
}

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::kOk: return "OK";
    case RunStatus::kOom: return "OOM";
    case RunStatus::kFailed: return "FAILED";
    case RunStatus::kInvalid: return "INVALID";
    case RunStatus::kInterrupted: return "INTERRUPTED";
  }
  return "?";
}

std::optional<RunStatus> parse_run_status(std::string_view text) {
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  // The proto's default value: a writer that never set a status; not a usable result.
  if (upper == "RUN_STATUS_UNSPECIFIED") return RunStatus::kInvalid;
  for (RunStatus s :
       {RunStatus::kOk, RunStatus::kOom, RunStatus::kFailed, RunStatus::kInvalid, RunStatus::kInterrupted}) {
    if (upper == to_string(s)) return s;
  }
  return std::nullopt;
}

bool PowerMode::has_knobs() const { return cpu_cores && cpu_freq_khz && gpu_freq_khz && emc_freq_khz; }

std::string PowerMode::label() const {
  // "custom" names every non-preset mode; the knobs tell them apart.
  if (!name.empty() && (name != "custom" || !has_knobs())) return name;
  auto mhz = [](const std::optional<std::int64_t>& khz) {
    return khz ? fmt::format("{:.0f}", static_cast<double>(*khz) / 1e3) : std::string("?");
  };
  return fmt::format("{}c/cpu{}/gpu{}/emc{}MHz", cpu_cores ? std::to_string(*cpu_cores) : "?", mhz(cpu_freq_khz),
                     mhz(gpu_freq_khz), mhz(emc_freq_khz));
}

std::optional<double> RunRecord::power_w() const {
  if (avg_power_w) return avg_power_w;
  if (epoch_energy_j && epoch_time_s && *epoch_time_s > 0) return *epoch_energy_j / *epoch_time_s;
  return std::nullopt;
}

std::string ConfigKey::axes_label() const {
  std::string out;
  for (const auto& [key, value] : axes) {
    if (!out.empty()) out += ' ';
    out += key + "=" + value;
  }
  return out;
}

std::string ConfigKey::label() const {
  std::string out = workload + " | " + mode.label();
  if (!axes.empty()) out += " | " + axes_label();
  return out;
}

ConfigKey config_key(const RunRecord& record) { return ConfigKey{record.workload, record.mode, record.axes}; }

}  // namespace jetchar::analysis
