// CPU cores, cpufreq policies (one per cluster) and cpuidle states, discovered from
// /sys/devices/system/cpu. Frequencies are kHz (the cpufreq ABI unit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct CpuIdleState {
  std::string name;              ///< "WFI", "c7", "C1", ...
  std::optional<bool> disabled;  ///< the `disable` attribute (jetson_clocks sets 1)
  std::optional<std::int64_t> latency_us;
};

struct CpuCore {
  int cpu = 0;
  bool online = false;
  std::optional<std::string> policy;  ///< "policy4" when cpufreq covers this core
  std::vector<CpuIdleState> idle_states;
};

struct CpuPolicy {
  std::string name;        ///< "policy0"
  std::string sysfs_path;  ///< "/sys/devices/system/cpu/cpufreq/policy0"
  std::vector<int> related_cpus;
  std::vector<int> affected_cpus;  ///< the online subset
  /// False when every related CPU is offline: the kernel keeps the policy but refuses reads of
  /// it (EBUSY, Linux >= 5.19) or drops its frequency table (ENODEV, R32).
  bool active = true;
  std::vector<std::int64_t> available_freqs_khz;
  std::vector<std::string> available_governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_freq_khz;     ///< scaling_min_freq
  std::optional<std::int64_t> max_freq_khz;     ///< scaling_max_freq
  std::optional<std::int64_t> cur_freq_khz;     ///< scaling_cur_freq
  std::optional<std::int64_t> hw_min_freq_khz;  ///< cpuinfo_min_freq
  std::optional<std::int64_t> hw_max_freq_khz;  ///< cpuinfo_max_freq
};

struct CpuTopology {
  std::vector<int> possible;
  std::vector<int> online;
  std::vector<CpuCore> cores;
  std::vector<CpuPolicy> policies;
  /// Why `policies` is empty (no cpufreq driver, e.g. in a VM); nullopt when cpufreq exists.
  std::optional<std::string> cpufreq_absent;
  /// Why no core has idle states; nullopt when cpuidle exists.
  std::optional<std::string> cpuidle_absent;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

/// Throws sysfs::IoError / FormatError when /sys/devices/system/cpu/online is missing or
/// malformed (no kernel jetchar supports lacks it); any other attribute that fails to read
/// becomes an Unavailable entry.
CpuTopology discover_cpu_topology(const sysfs::Root& root);

}  // namespace jetchar::jetson
