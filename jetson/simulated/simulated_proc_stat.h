// The simulated board's /proc/stat: CPU time counters that advance with the board's modelled CPU
// load, so that whatever reads CPU utilisation from it (the telemetry sampler behind `jetchar
// monitor`, tegrastats-style) sees the load the power model uses (SimulatedBoard, u) instead of
// the fixture's frozen capture, where every interval reads as no time at all ("-").
//
// The kernel's format (fs/proc/stat.c, show_stat; docs/kernel-formats.md, `proc-stat`): an
// aggregate line "cpu  " (two spaces) summed over every *possible* CPU, then one "cpuN" line per
// *online* CPU only, each with ten counters in USER_HZ ticks (user nice system idle iowait irq
// softirq steal guest guest_nice), then intr, ctxt, btime, processes, procs_running,
// procs_blocked and softirq lines. So a CPU taken offline loses its line but its counters still
// count in the aggregate, standing still until it comes back.
//
// Model: over an interval of t seconds every online CPU gains t × USER_HZ ticks, u of them busy
// and the rest idle, with the busy ticks split kUserShare user : the rest system (a training or
// inference process spends most of its CPU time in user space; the share is a choice, not a
// measurement); every other counter keeps its captured value. Counters are kept fractional here
// and printed truncated, so short intervals lose nothing and the printed numbers never go back.
#pragma once

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::jetson {

/// USER_HZ: /proc/stat counts in 1/100 s on every Jetson kernel (sysfs/proc_stat.h).
inline constexpr double kUserHz = 100;
/// Of a busy tick, this much is user time and the rest system time.
inline constexpr double kUserShare = 0.85;

/// The ten counters of a CPU line, in ticks.
using CpuCounters = std::array<double, 10>;

struct SimulatedCpuTimes {
  CpuCounters all{};                  ///< the aggregate "cpu" line
  std::map<int, CpuCounters> cpus{};  ///< every CPU seen, online or not (the kernel keeps an offline CPU's counters)
};

/// The counters of /proc/stat text (the fixture's capture). Missing trailing counters are 0; a
/// line that is not a CPU line is skipped. Throws sysfs::FormatError for a malformed CPU line.
SimulatedCpuTimes cpu_times_from_text(std::string_view text);

/// Advances each CPU of `online` by `seconds` at busy fraction `busy` (clamped to [0, 1]), and the
/// aggregate by the sum of what they gained.
void advance_cpu_times(SimulatedCpuTimes& times, const std::vector<int>& online, double seconds, double busy);

/// /proc/stat as show_stat prints it: the aggregate line, a line per CPU of `online` (ascending;
/// one never seen starts at 0), then every line of `current` after its CPU lines, verbatim. Ends
/// with a newline.
std::string format_proc_stat(const SimulatedCpuTimes& times, const std::vector<int>& online, std::string_view current);

nlohmann::json to_json(const SimulatedCpuTimes& times);
SimulatedCpuTimes cpu_times_from_json(const nlohmann::json& json);

}  // namespace jetchar::jetson
