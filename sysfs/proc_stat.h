// /proc/stat CPU time counters: the aggregate "cpu" line and one "cpuN" line per online CPU
// (a hot-unplugged CPU has no line at all), and per-core utilization between two snapshots, the
// way tegrastats computes its "CPU [X%@F,...]" figures.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "sysfs/root.h"

namespace jetchar::sysfs {

/// Time a CPU spent in each state since boot, in USER_HZ clock ticks (sysconf(_SC_CLK_TCK),
/// 100 per second on every Jetson kernel). guest/guest_nice are not kept: the kernel already
/// counts them inside user/nice.
struct CpuTimes {
  std::uint64_t user_ticks = 0;
  std::uint64_t nice_ticks = 0;
  std::uint64_t system_ticks = 0;
  std::uint64_t idle_ticks = 0;
  std::uint64_t iowait_ticks = 0;
  std::uint64_t irq_ticks = 0;
  std::uint64_t softirq_ticks = 0;
  std::uint64_t steal_ticks = 0;

  /// Sum of all eight states.
  std::uint64_t total_ticks() const;
  /// idle + iowait: a CPU waiting for I/O is not busy (as top and tegrastats count it).
  std::uint64_t idle_total_ticks() const;
  /// total - idle_total.
  std::uint64_t busy_ticks() const;
};

/// One snapshot of /proc/stat's CPU lines.
struct ProcStat {
  /// The aggregate "cpu" line (fs/proc/stat.c sums it over every possible CPU: an offline CPU's
  /// counters stand still but still count).
  CpuTimes all;
  /// "cpuN" lines by CPU number N; offline CPUs are absent.
  std::map<int, CpuTimes> cpus;
};

/// Parses /proc/stat text. Lines that are not CPU lines (intr, ctxt, btime, ...) are ignored.
/// Throws FormatError naming `source` and the line for a malformed CPU line (fewer than eight
/// counters, a non-numeric counter, a bad CPU number, a duplicate CPU) or a missing "cpu" line.
ProcStat parse_proc_stat(std::string_view text, std::string_view source = "/proc/stat");
/// Reads and parses /proc/stat under `root`. Throws IoError / FormatError.
ProcStat read_proc_stat(const Root& root);

/// Busy fraction (0..1) of one CPU between two snapshots: Δbusy / Δtotal. nullopt when no tick
/// elapsed, or when the total went backwards (the counters restart when a core is hot-plugged
/// back). A single state going backwards a little (a known iowait quirk of NO_HZ kernels) is
/// counted as zero instead of failing the whole figure.
std::optional<double> busy_fraction(const CpuTimes& before, const CpuTimes& after);

/// Busy fraction per CPU for every CPU present in either snapshot; nullopt for a CPU missing
/// from one of them (went offline or came online in between) or whose counters reset.
std::map<int, std::optional<double>> per_core_busy_fraction(const ProcStat& before, const ProcStat& after);

}  // namespace jetchar::sysfs
