#include "jetson/discovery/cpu_topology.h"

#include <algorithm>
#include <cerrno>

#include "jetson/discovery/sysfs_natural_sort.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

// What a failing read of a policy attribute means (docs/kernel-formats.md, cpufreq rows).
constexpr std::string_view kInactiveBusy =
    "the policy is inactive (all its CPUs are offline) and Linux >= 5.19 refuses to read it";
constexpr std::string_view kNoFreqTable =
    "the policy has no frequency table while all its CPUs are offline (the R32 kernel drops it)";

constexpr ErrnoMeaning kPolicyErrors[] = {{EBUSY, kInactiveBusy}, {ENODEV, kNoFreqTable}};

bool contains(const std::vector<int>& cpus, int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }

// The CPUs whose cpuN/cpufreq link points at `policy_dir`. The kernel keeps these links while a
// CPU is offline, so they name a policy's CPUs even when the policy refuses every read.
std::vector<int> cpus_linked_to(const sysfs::Root& root, const std::string& policy_dir) {
  std::vector<int> cpus;
  for (const auto& link : root.glob(std::string(kCpuDir) + "/cpu[0-9]*/cpufreq")) {
    if (root.canonical(link) == root.canonical(policy_dir)) {
      const std::string cpu_dir = link.substr(0, link.rfind('/'));
      cpus.push_back(trailing_number(cpu_dir));
    }
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

CpuPolicy read_policy(AttributeReader& read, const std::string& dir, const std::vector<int>& online) {
  const sysfs::Root& root = read.root();
  CpuPolicy policy;
  policy.name = dir.substr(dir.find_last_of('/') + 1);
  policy.sysfs_path = dir;
  auto item = [&](std::string_view attribute) { return policy.name + " " + std::string(attribute); };

  if (auto related = read.cpus(dir + "/related_cpus", item("related_cpus"), kPolicyErrors)) {
    policy.related_cpus = std::move(*related);
  } else {
    policy.related_cpus = cpus_linked_to(root, dir);
  }
  policy.active = std::any_of(policy.related_cpus.begin(), policy.related_cpus.end(),
                              [&](int cpu) { return contains(online, cpu); });
  if (auto affected = read.cpus(dir + "/affected_cpus", item("affected_cpus"), kPolicyErrors)) {
    policy.affected_cpus = std::move(*affected);
  }
  if (auto freqs =
          read.integers(dir + "/scaling_available_frequencies", item("scaling_available_frequencies"), kPolicyErrors)) {
    policy.available_freqs_khz = std::move(*freqs);
    std::sort(policy.available_freqs_khz.begin(), policy.available_freqs_khz.end());
  }
  if (auto governors =
          read.words(dir + "/scaling_available_governors", item("scaling_available_governors"), kPolicyErrors)) {
    policy.available_governors = std::move(*governors);
  }
  policy.governor = read.text(dir + "/scaling_governor", item("scaling_governor"), kPolicyErrors);
  policy.min_freq_khz = read.integer(dir + "/scaling_min_freq", item("scaling_min_freq"), kPolicyErrors);
  policy.max_freq_khz = read.integer(dir + "/scaling_max_freq", item("scaling_max_freq"), kPolicyErrors);
  policy.cur_freq_khz = read.integer(dir + "/scaling_cur_freq", item("scaling_cur_freq"), kPolicyErrors);
  policy.hw_min_freq_khz = read.integer(dir + "/cpuinfo_min_freq", item("cpuinfo_min_freq"), kPolicyErrors);
  policy.hw_max_freq_khz = read.integer(dir + "/cpuinfo_max_freq", item("cpuinfo_max_freq"), kPolicyErrors);
  return policy;
}

}  // namespace

CpuTopology discover_cpu_topology(const sysfs::Root& root) {
  CpuTopology topology;
  AttributeReader read(root, topology.unavailable);
  const std::string dir = kCpuDir;
  topology.online = sysfs::read_cpu_list(root, dir + "/online");
  if (auto possible = read.cpus(dir + "/possible", "possible CPUs")) topology.possible = std::move(*possible);
  if (topology.possible.empty()) {
    for (const auto& path : natural_sorted(root.glob(dir + "/cpu[0-9]*"))) {
      topology.possible.push_back(trailing_number(path));
    }
    std::sort(topology.possible.begin(), topology.possible.end());
  }

  for (const auto& path : natural_sorted(root.glob(dir + "/cpufreq/policy*"))) {
    topology.policies.push_back(read_policy(read, path, topology.online));
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
    core.online = contains(topology.online, cpu);
    const std::string cpu_dir = dir + "/cpu" + std::to_string(cpu);
    // The kernel links each CPU to its policy (cpuN/cpufreq -> ../cpufreq/policyM) and keeps the
    // link while the CPU is offline; related_cpus says the same where the link is missing.
    if (root.exists(cpu_dir + "/cpufreq")) {
      const std::string target = root.canonical(cpu_dir + "/cpufreq");
      for (const auto& policy : topology.policies) {
        if (root.canonical(policy.sysfs_path) == target) core.policy = policy.name;
      }
    }
    for (const auto& policy : topology.policies) {
      if (!core.policy && contains(policy.related_cpus, cpu)) core.policy = policy.name;
    }
    for (const auto& state_dir : natural_sorted(root.glob(cpu_dir + "/cpuidle/state*"))) {
      const std::string item = "cpu" + std::to_string(cpu) + " " + state_dir.substr(state_dir.rfind('/') + 1);
      CpuIdleState state;
      state.name = read.text(state_dir + "/name", item + " name").value_or(state_dir.substr(state_dir.rfind('/') + 1));
      if (auto disable = read.integer(state_dir + "/disable", item + " disable")) state.disabled = *disable != 0;
      state.latency_us = read.integer(state_dir + "/latency", item + " latency");
      core.idle_states.push_back(std::move(state));
    }
    any_idle = any_idle || !core.idle_states.empty();
    topology.cores.push_back(std::move(core));
  }
  if (!any_idle) topology.cpuidle_absent = "no cpuN/cpuidle/state* (no cpuidle driver, or all cores offline)";
  return topology;
}

}  // namespace jetchar::jetson
