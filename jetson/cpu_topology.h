// CPU cores, cpufreq policies (one per cluster) and cpuidle states, discovered from
// /sys/devices/system/cpu. Frequencies are kHz (the cpufreq ABI unit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

struct CpuIdleState {
  std::string name;                    ///< "WFI", "c7", "C1", ...
  std::optional<bool> disabled;        ///< the `disable` attribute (jetson_clocks sets 1)
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
  std::vector<std::int64_t> available_freqs_khz;
  std::vector<std::string> available_governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_freq_khz;  ///< scaling_min_freq
  std::optional<std::int64_t> max_freq_khz;  ///< scaling_max_freq
  std::optional<std::int64_t> cur_freq_khz;  ///< scaling_cur_freq
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
};

/// Throws sysfs::IoError / FormatError when /sys/devices/system/cpu/online is missing or
/// malformed; attributes that a kernel may lack are optional.
CpuTopology discover_cpu_topology(const sysfs::Root& root);

}  // namespace jetchar::jetson
