#include "jetson/cpu_topology.h"

#include <algorithm>

#include "jetson/sysfs_natural_sort.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

std::optional<std::int64_t> optional_int(const sysfs::Root& root, const std::string& path) {
  if (!root.exists(path)) return std::nullopt;
  return sysfs::read_int(root, path);
}

CpuPolicy read_policy(const sysfs::Root& root, const std::string& dir) {
  CpuPolicy policy;
  policy.name = dir.substr(dir.find_last_of('/') + 1);
  policy.sysfs_path = dir;
  if (root.exists(dir + "/related_cpus")) policy.related_cpus = sysfs::read_cpu_list(root, dir + "/related_cpus");
  if (root.exists(dir + "/affected_cpus")) policy.affected_cpus = sysfs::read_cpu_list(root, dir + "/affected_cpus");
  if (root.exists(dir + "/scaling_available_frequencies")) {
    policy.available_freqs_khz = sysfs::read_int_list(root, dir + "/scaling_available_frequencies");
    std::sort(policy.available_freqs_khz.begin(), policy.available_freqs_khz.end());
  }
  if (root.exists(dir + "/scaling_available_governors")) {
    policy.available_governors = sysfs::read_word_list(root, dir + "/scaling_available_governors");
  }
  if (root.exists(dir + "/scaling_governor")) policy.governor = sysfs::read_string(root, dir + "/scaling_governor");
  policy.min_freq_khz = optional_int(root, dir + "/scaling_min_freq");
  policy.max_freq_khz = optional_int(root, dir + "/scaling_max_freq");
  policy.cur_freq_khz = optional_int(root, dir + "/scaling_cur_freq");
  policy.hw_min_freq_khz = optional_int(root, dir + "/cpuinfo_min_freq");
  policy.hw_max_freq_khz = optional_int(root, dir + "/cpuinfo_max_freq");
  return policy;
}

}  // namespace

CpuTopology discover_cpu_topology(const sysfs::Root& root) {
  CpuTopology topology;
  const std::string dir = kCpuDir;
  topology.online = sysfs::read_cpu_list(root, dir + "/online");
  if (root.exists(dir + "/possible")) topology.possible = sysfs::read_cpu_list(root, dir + "/possible");
  if (topology.possible.empty()) {
    for (const auto& path : natural_sorted(root.glob(dir + "/cpu[0-9]*"))) {
      topology.possible.push_back(trailing_number(path));
    }
    std::sort(topology.possible.begin(), topology.possible.end());
  }

  for (const auto& path : natural_sorted(root.glob(dir + "/cpufreq/policy*"))) {
    topology.policies.push_back(read_policy(root, path));
  }
  if (topology.policies.empty()) {
    topology.cpufreq_absent = root.exists(dir + "/cpufreq")
                                  ? "no cpufreq policies (no frequency-scaling driver, typical of a VM)"
                                  : "no /sys/devices/system/cpu/cpufreq (kernel without cpufreq)";
  }

  bool any_idle = false;
  for (int cpu : topology.possible) {
    CpuCore core;
    core.cpu = cpu;
    core.online = std::find(topology.online.begin(), topology.online.end(), cpu) != topology.online.end();
    for (const auto& policy : topology.policies) {
      if (std::find(policy.related_cpus.begin(), policy.related_cpus.end(), cpu) != policy.related_cpus.end()) {
        core.policy = policy.name;
      }
    }
    const std::string cpu_dir = dir + "/cpu" + std::to_string(cpu);
    for (const auto& state_dir : natural_sorted(root.glob(cpu_dir + "/cpuidle/state*"))) {
      CpuIdleState state;
      state.name = sysfs::try_read_string(root, state_dir + "/name").value_or(state_dir.substr(state_dir.rfind('/') + 1));
      if (auto disable = optional_int(root, state_dir + "/disable")) state.disabled = *disable != 0;
      state.latency_us = optional_int(root, state_dir + "/latency");
      core.idle_states.push_back(std::move(state));
    }
    any_idle = any_idle || !core.idle_states.empty();
    topology.cores.push_back(std::move(core));
  }
  if (!any_idle) topology.cpuidle_absent = "no cpuN/cpuidle/state* (no cpuidle driver, or all cores offline)";
  return topology;
}

}  // namespace jetchar::jetson
