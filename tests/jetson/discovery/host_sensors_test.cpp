#include "jetson/discovery/host_sensors.h"

#include <gtest/gtest.h>

#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_host_sensors;
using jetchar::testing::BoardTree;

TEST(HostSensorsTest, HwmonPowercapAndNvidiaGpus) {
  BoardTree tree(
      "file /sys/class/hwmon/hwmon0/name = coretemp\n"
      "file /sys/class/hwmon/hwmon0/temp1_label = Package id 0\n"
      "file /sys/class/hwmon/hwmon0/temp1_input = 45000\n"
      "file /sys/class/hwmon/hwmon0/temp2_input = 44000\n"
      "file /sys/class/hwmon/hwmon0/fan1_input = 900\n"
      "file /sys/class/hwmon/hwmon0/weird_input = 1\n"
      "file /sys/class/hwmon/hwmon1/name = ina3221\n"
      "file /sys/class/hwmon/hwmon1/in1_input = 5000\n"
      "file /sys/class/powercap/intel-rapl/enabled = 1\n"
      "file /sys/class/powercap/intel-rapl:0/name = package-0\n"
      "file /sys/class/powercap/intel-rapl:0/energy_uj = 123456789\n"
      "file /sys/class/powercap/intel-rapl:0/max_energy_range_uj = 262143328850\n"
      "file /sys/class/powercap/intel-rapl:0:0/name = core\n"
      "dir /proc/driver/nvidia/gpus/0000:01:00.0\n");
  const auto s = discover_host_sensors(tree.root());
  ASSERT_EQ(s.hwmon.size(), 1u);  // ina3221 belongs to the power monitors
  EXPECT_EQ(s.hwmon[0].name, "coretemp");
  ASSERT_EQ(s.hwmon[0].channels.size(), 3u);
  EXPECT_EQ(s.hwmon[0].channels[0].attribute, "fan1");
  EXPECT_EQ(s.hwmon[0].channels[0].unit, "rpm");
  EXPECT_EQ(s.hwmon[0].channels[1].label, "Package id 0");
  EXPECT_EQ(s.hwmon[0].channels[1].unit, "mC");
  ASSERT_EQ(s.powercap.size(), 2u);
  EXPECT_EQ(s.powercap[0].zone, "intel-rapl:0");
  EXPECT_EQ(s.powercap[0].energy_uj, 123456789);
  EXPECT_EQ(s.powercap[1].name, "core");
  EXPECT_FALSE(s.powercap[1].energy_uj);
  EXPECT_TRUE(s.powercap[1].note);
  EXPECT_EQ(s.nvidia_gpus, std::vector<std::string>{"0000:01:00.0"});
  EXPECT_FALSE(s.powercap_absent);
}

TEST(HostSensorsTest, BareVmReportsEverythingAbsent) {
  BoardTree tree("dir /sys/class\n");
  const auto s = discover_host_sensors(tree.root());
  EXPECT_TRUE(s.hwmon.empty());
  EXPECT_TRUE(s.hwmon_absent);
  EXPECT_TRUE(s.powercap_absent);
  EXPECT_TRUE(s.nvidia_gpus_absent);
}
