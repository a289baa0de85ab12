#include "jetson/discovery/thermal.h"

#include <gtest/gtest.h>

#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_thermal_zones;
using jetchar::testing::BoardTree;

TEST(ThermalTest, PoweredOffFixedAndNumericOrder) {
  BoardTree tree(
      "repeat N,TYPE,TEMP in 10:tdiode:30000 2:CV0-therm:-256000 1:PMIC-Die:100000 0:CPU-therm:41437\n"
      "file /sys/class/thermal/thermal_zone{N}/type = {TYPE}\n"
      "file /sys/class/thermal/thermal_zone{N}/temp = {TEMP}\n"
      "end\n"
      "file /sys/class/thermal/thermal_zone3/type = broken\n"
      "dir /sys/class/thermal/thermal_zone3/temp\n");
  const auto t = discover_thermal_zones(tree.root());
  ASSERT_EQ(t.zones.size(), 5u);
  EXPECT_EQ(t.zones[0].type, "CPU-therm");
  EXPECT_EQ(t.zones[0].temp_mc, 41437);
  EXPECT_TRUE(t.zones[1].fixed_reading);
  EXPECT_TRUE(t.zones[2].powered_off);
  EXPECT_FALSE(t.zones[2].temp_mc);
  EXPECT_FALSE(t.zones[3].temp_mc);  // unreadable: noted, not fatal
  EXPECT_TRUE(t.zones[3].note);
  EXPECT_EQ(t.zones[4].zone, "thermal_zone10");
}

TEST(ThermalTest, NoZonesIsAbsent) {
  BoardTree tree("dir /sys/class/thermal\n");
  EXPECT_TRUE(discover_thermal_zones(tree.root()).absent);
}
