#include "jetson/simulated/simulated_proc_stat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sysfs/error.h"
#include "sysfs/proc_text.h"

namespace jetchar::jetson {
namespace {

constexpr std::size_t kUser = 0;
constexpr std::size_t kSystem = 2;
constexpr std::size_t kIdle = 3;

bool is_cpu_line(std::string_view line) { return line.substr(0, 3) == "cpu"; }

// The ten counters as the kernel prints them (seq_put_decimal_ull: " " and the decimal number).
std::string counters_text(const CpuCounters& counters) {
  std::string text;
  for (const double value : counters) {
    text += fmt::format(" {}", static_cast<std::uint64_t>(std::max(0.0, std::floor(value))));
  }
  return text;
}

}  // namespace

SimulatedCpuTimes cpu_times_from_text(std::string_view text) {
  SimulatedCpuTimes times;
  const auto lines = sysfs::split_lines(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    if (!is_cpu_line(line)) continue;
    const auto fields = sysfs::split_fields(line);
    const auto fail = [&] {
      return sysfs::FormatError("/proc/stat", index + 1, sysfs::excerpt(line),
                                "'cpu[N]' and up to ten decimal tick counts");
    };
    std::optional<int> cpu;
    if (fields.front() != "cpu") {
      const auto number = sysfs::parse_u64(fields.front().substr(3));
      if (!number || *number > 65535) throw fail();
      cpu = static_cast<int>(*number);
    }
    if (fields.size() > 11) throw fail();
    CpuCounters counters{};
    for (std::size_t i = 1; i < fields.size(); ++i) {
      const auto value = sysfs::parse_u64(fields[i]);
      if (!value) throw fail();
      counters[i - 1] = static_cast<double>(*value);
    }
    (cpu ? times.cpus[*cpu] : times.all) = counters;
  }
  return times;
}

void advance_cpu_times(SimulatedCpuTimes& times, const std::vector<int>& online, double seconds, double busy) {
  if (!(seconds > 0)) return;
  const double ticks = seconds * kUserHz;
  const double busy_ticks = ticks * std::clamp(busy, 0.0, 1.0);
  const double user = busy_ticks * kUserShare;
  const double system = busy_ticks - user;
  const double idle = ticks - busy_ticks;
  for (const int cpu : online) {
    auto& counters = times.cpus[cpu];
    counters[kUser] += user;
    counters[kSystem] += system;
    counters[kIdle] += idle;
    times.all[kUser] += user;
    times.all[kSystem] += system;
    times.all[kIdle] += idle;
  }
}

std::string format_proc_stat(const SimulatedCpuTimes& times, const std::vector<int>& online, std::string_view current) {
  std::string text = "cpu " + counters_text(times.all) + "\n";
  std::vector<int> sorted = online;
  std::sort(sorted.begin(), sorted.end());
  for (const int cpu : sorted) {
    const auto it = times.cpus.find(cpu);
    text += fmt::format("cpu{}{}\n", cpu, counters_text(it != times.cpus.end() ? it->second : CpuCounters{}));
  }
  // The lines after the CPU lines (intr, ctxt, btime, ...) as they stand.
  bool past_cpus = false;
  for (const std::string_view line : sysfs::split_lines(current)) {
    if (!past_cpus && is_cpu_line(line)) continue;
    past_cpus = true;
    if (sysfs::split_fields(line).empty()) continue;  // blank, or an in-place rewrite's padding
    text += std::string(line) + "\n";
  }
  return text;
}

nlohmann::json to_json(const SimulatedCpuTimes& times) {
  nlohmann::json cpus = nlohmann::json::object();
  for (const auto& [cpu, counters] : times.cpus) cpus[std::to_string(cpu)] = counters;
  return {{"all", times.all}, {"cpus", cpus}};
}

SimulatedCpuTimes cpu_times_from_json(const nlohmann::json& json) {
  SimulatedCpuTimes times;
  times.all = json.at("all").get<CpuCounters>();
  for (const auto& [cpu, counters] : json.at("cpus").items()) times.cpus[std::stoi(cpu)] = counters.get<CpuCounters>();
  return times;
}

}  // namespace jetchar::jetson
