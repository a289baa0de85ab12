#include "jetson/discovery/cpu_topology.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_cpu_topology;
using jetchar::testing::BoardTree;

TEST(CpuTopologyTest, PoliciesCoresAndIdleStates) {
  BoardTree tree(
      "file /sys/devices/system/cpu/online = 0-2\n"
      "file /sys/devices/system/cpu/possible = 0-3\n"
      "repeat C,P in 0:0 1:0 2:2 3:2\n"
      "dir /sys/devices/system/cpu/cpu{C}\n"
      "end\n"
      "repeat C in 0-2\n"
      "file /sys/devices/system/cpu/cpu{C}/cpuidle/state0/name = WFI\n"
      "file /sys/devices/system/cpu/cpu{C}/cpuidle/state0/disable = 1\n"
      "end\n"
      "repeat P,CPUS in 0:0-1 2:2-3\n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/related_cpus = {CPUS}\n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/scaling_available_frequencies = 204000 102000 \n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/scaling_governor = schedutil\n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/scaling_max_freq = 204000\n"
      "end\n"
      "file /sys/devices/system/cpu/cpufreq/policy10/related_cpus = 10\n");
  const auto cpu = discover_cpu_topology(tree.root());
  EXPECT_EQ(cpu.online, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(cpu.possible, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(cpu.policies.size(), 3u);
  // Numeric order: policy10 after policy2.
  EXPECT_EQ(cpu.policies[1].name, "policy2");
  EXPECT_EQ(cpu.policies[2].name, "policy10");
  EXPECT_EQ(cpu.policies[0].available_freqs_khz, (std::vector<std::int64_t>{102000, 204000}));
  EXPECT_EQ(cpu.policies[0].max_freq_khz, 204000);
  EXPECT_FALSE(cpu.policies[0].min_freq_khz);
  EXPECT_FALSE(cpu.policies[2].governor);
  ASSERT_EQ(cpu.cores.size(), 4u);
  EXPECT_FALSE(cpu.cores[3].online);
  EXPECT_EQ(cpu.cores[3].policy, "policy2");
  ASSERT_EQ(cpu.cores[0].idle_states.size(), 1u);
  EXPECT_EQ(cpu.cores[0].idle_states[0].name, "WFI");
  EXPECT_EQ(cpu.cores[0].idle_states[0].disabled, true);
  EXPECT_TRUE(cpu.cores[3].idle_states.empty());
  EXPECT_FALSE(cpu.cpufreq_absent);
  EXPECT_FALSE(cpu.cpuidle_absent);
}

TEST(CpuTopologyTest, NoCpufreqIsReportedAbsent) {
  BoardTree tree(
      "file /sys/devices/system/cpu/online = 0-1\ndir /sys/devices/system/cpu/cpu0\ndir "
      "/sys/devices/system/cpu/cpu1\n");
  const auto cpu = discover_cpu_topology(tree.root());
  EXPECT_EQ(cpu.possible, (std::vector<int>{0, 1}));
  EXPECT_TRUE(cpu.policies.empty());
  ASSERT_TRUE(cpu.cpufreq_absent);
  EXPECT_TRUE(cpu.cpuidle_absent);
}

TEST(CpuTopologyTest, MissingOrMalformedOnlineListThrows) {
  BoardTree missing("dir /sys/devices/system/cpu\n");
  EXPECT_THROW(discover_cpu_topology(missing.root()), jetchar::sysfs::IoError);
  BoardTree malformed("file /sys/devices/system/cpu/online = 0-x\n");
  EXPECT_THROW(discover_cpu_topology(malformed.root()), jetchar::sysfs::FormatError);
}

// Any other attribute that cannot be read or parsed becomes unavailable, with the path and the
// reason, and discovery goes on: one refusing attribute must not stop `device info`.
TEST(CpuTopologyTest, UnreadableOrMalformedAttributesAreUnavailableWithTheReason) {
  BoardTree tree(
      "file /sys/devices/system/cpu/online = 0\n"
      "file /sys/devices/system/cpu/cpufreq/policy0/related_cpus = 0\n"
      "file /sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq = fast\n"
      "file /sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq = 115200\n"
      "dir /sys/devices/system/cpu/cpufreq/policy0/scaling_governor\n");
  const auto topology = discover_cpu_topology(tree.root());
  ASSERT_EQ(topology.policies.size(), 1u);
  EXPECT_EQ(topology.policies[0].min_freq_khz, 115200);
  EXPECT_EQ(topology.policies[0].max_freq_khz, std::nullopt);
  EXPECT_EQ(topology.policies[0].governor, std::nullopt);
  ASSERT_EQ(topology.unavailable.size(), 2u);
  EXPECT_EQ(topology.unavailable[0].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
  EXPECT_EQ(topology.unavailable[0].item, "policy0 scaling_governor");
  EXPECT_NE(topology.unavailable[0].reason.find("EISDIR"), std::string::npos) << topology.unavailable[0].reason;
  EXPECT_EQ(topology.unavailable[1].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq");
  EXPECT_NE(topology.unavailable[1].reason.find("'fast'"), std::string::npos) << topology.unavailable[1].reason;
}

// Linux >= 5.19 answers EBUSY to every read of a policy whose CPUs are all offline (cpufreq.c
// show()); the policy's CPUs still come from the cpuN/cpufreq links the kernel keeps.
TEST(CpuTopologyTest, InactivePolicyThatRefusesEveryReadStillNamesItsCpus) {
  BoardTree tree(
      "file /sys/devices/system/cpu/online = 0-3\n"
      "repeat C,P in 0:0 1:0 2:0 3:0 4:4 5:4 6:4 7:4\n"
      "link /sys/devices/system/cpu/cpu{C}/cpufreq -> ../cpufreq/policy{P}\n"
      "end\n"
      "repeat P,CPUS in 0:0\\x201\\x202\\x203 4:4\\x205\\x206\\x207\n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/related_cpus = {CPUS}\n"
      "file /sys/devices/system/cpu/cpufreq/policy{P}/scaling_max_freq = 2201600\n"
      "end\n"
      "fail-read /sys/devices/system/cpu/cpufreq/policy4/related_cpus = EBUSY\n"
      "fail-read /sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq = EBUSY\n");
  const auto topology = discover_cpu_topology(tree.root());
  ASSERT_EQ(topology.policies.size(), 2u);
  EXPECT_TRUE(topology.policies[0].active);
  EXPECT_EQ(topology.policies[0].related_cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(topology.policies[1].active);
  EXPECT_EQ(topology.policies[1].related_cpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(topology.policies[1].max_freq_khz, std::nullopt);
  ASSERT_EQ(topology.unavailable.size(), 2u);
  EXPECT_NE(topology.unavailable[0].reason.find("EBUSY"), std::string::npos);
  EXPECT_NE(topology.unavailable[0].reason.find("inactive"), std::string::npos) << topology.unavailable[0].reason;
  EXPECT_EQ(topology.cores[5].policy, "policy4");
}
