#include "jetson/discovery/power_monitors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_power_monitors;
using jetchar::jetson::PowerMonitorDriver;
using jetchar::testing::BoardTree;
using ::testing::ElementsAre;

namespace {

constexpr std::string_view kIio =
    "link /sys/bus/i2c/drivers/ina3221x/6-0040 -> ../../../../devices/i2c-6/6-0040\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/running_mode = 1\n"
    "repeat N,RAIL,MV,MA in 0:POM_5V_IN:5000:200 1:POM_5V_GPU:5000:10 2:POM_5V_CPU:5000:20\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/rail_name_{N} = {RAIL}\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/in_voltage{N}_input = {MV}\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/in_current{N}_input = {MA}\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/crit_current_limit_{N} = 3500 ma\n"
    "end\n"
    "file /sys/devices/i2c-6/6-0040/iio:device0/in_power0_input = 999\n";

// hwmon ina3221 devices at hwmon7 (1-0041) and hwmon2 (1-0040): index order differs from bus order.
constexpr std::string_view kHwmon =
    "repeat H,DEV in 7:1-0041 2:1-0040\n"
    "link /sys/class/hwmon/hwmon{H} -> ../../devices/i2c-1/{DEV}/hwmon/hwmon{H}\n"
    "file /sys/devices/i2c-1/{DEV}/hwmon/hwmon{H}/name = ina3221\n"
    "file /sys/devices/i2c-1/{DEV}/hwmon/hwmon{H}/samples = 4\n"
    "file /sys/devices/i2c-1/{DEV}/hwmon/hwmon{H}/update_interval = 27\n"
    "end\n"
    "repeat N,LABEL,MV,MA in 1:VDD_GPU_SOC:5000:400 2:VDD_CPU_CV:5000:100 3:VIN_SYS_5V0:5000:700\n"
    "file /sys/devices/i2c-1/1-0040/hwmon/hwmon2/in{N}_label = {LABEL}\n"
    "file /sys/devices/i2c-1/1-0040/hwmon/hwmon2/in{N}_input = {MV}\n"
    "file /sys/devices/i2c-1/1-0040/hwmon/hwmon2/curr{N}_input = {MA}\n"
    "file /sys/devices/i2c-1/1-0040/hwmon/hwmon2/shunt{N}_resistor = 2000\n"
    "end\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in1_label = NC\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in1_input = 0\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in2_input = 1800\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/curr2_input = 50\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in3_enable = 0\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in3_label = VDD_SPARE\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in3_input = 0\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in7_label = sum of shunt voltages\n"
    "file /sys/devices/i2c-1/1-0041/hwmon/hwmon7/in7_input = 5\n";

}  // namespace

TEST(Ina3221Test, IioDriverWithUnitSuffixesAndBoardInput) {
  BoardTree tree(kIio);
  const auto p = discover_power_monitors(tree.root());
  ASSERT_EQ(p.devices.size(), 1u);
  const auto& d = p.devices[0];
  EXPECT_EQ(d.driver, PowerMonitorDriver::kIna3221Iio);
  EXPECT_EQ(d.i2c_device, "6-0040");
  EXPECT_EQ(d.running_mode, 1);
  ASSERT_EQ(d.rails.size(), 3u);
  EXPECT_EQ(d.rails[0].name, "POM_5V_IN");
  EXPECT_EQ(d.rails[0].crit_current_limit_ma, 3500);
  // in_power wins over V x I where the driver gives it.
  EXPECT_EQ(d.rails[0].power_mw, 999);
  EXPECT_EQ(d.rails[1].power_mw, 50);
  EXPECT_EQ(p.board_input_rail, "POM_5V_IN");
  EXPECT_EQ(p.total_kind, "board input rail");
  EXPECT_TRUE(p.summed_rails.empty());
}

TEST(Ina3221Test, HwmonDriverAnyIndexNcAndDisabledChannels) {
  BoardTree tree(kHwmon);
  const auto p = discover_power_monitors(tree.root());
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].i2c_device, "1-0040");
  EXPECT_EQ(p.devices[0].sysfs_path, "/sys/devices/i2c-1/1-0040/hwmon/hwmon2");
  EXPECT_EQ(p.devices[0].samples, 4);
  EXPECT_EQ(p.devices[0].update_interval_ms, 27);
  EXPECT_EQ(p.devices[0].rails[0].power_mw, 2000);
  EXPECT_EQ(p.devices[0].rails[0].shunt_resistor_uohm, 2000);
  const auto& second = p.devices[1].rails;
  ASSERT_EQ(second.size(), 3u);  // in7 (summation) is not a rail
  EXPECT_FALSE(second[0].connected);
  EXPECT_FALSE(second[0].voltage_mv);
  EXPECT_EQ(second[1].name, "in2");  // no label: the driver hides it
  EXPECT_TRUE(second[1].connected);
  EXPECT_FALSE(second[2].connected);  // in3_enable = 0
  EXPECT_FALSE(p.board_input_rail);
  EXPECT_EQ(p.total_kind, "sum of module rails");
  EXPECT_THAT(p.summed_rails, ElementsAre("VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "in2"));
}

TEST(Ina3221Test, NoDevicesIsAbsentAndBadValuesThrow) {
  BoardTree none("dir /sys/class/hwmon\n");
  const auto p = discover_power_monitors(none.root());
  EXPECT_TRUE(p.devices.empty());
  EXPECT_TRUE(p.absent);
  BoardTree bad(std::string(kIio) + "file /sys/devices/i2c-6/6-0040/iio:device0/in_voltage1_input = 5 V\n");
  const auto monitors = discover_power_monitors(bad.root());
  ASSERT_EQ(monitors.unavailable.size(), 1u);
  EXPECT_EQ(monitors.unavailable[0].path, "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0/in_voltage1_input");
  EXPECT_NE(monitors.unavailable[0].reason.find("'5 V'"), std::string::npos) << monitors.unavailable[0].reason;
}

// The R32 iio driver gives up with EAGAIN when a conversion does not complete; the rail's power
// is then unavailable with that reason, and the other rails are read.
TEST(Ina3221Test, IioReadThatGivesUpIsUnavailable) {
  BoardTree tree(std::string(kIio) + "fail-read /sys/devices/i2c-6/6-0040/iio:device0/in_power1_input = EAGAIN\n");
  const auto monitors = discover_power_monitors(tree.root());
  ASSERT_EQ(monitors.devices.size(), 1u);
  ASSERT_EQ(monitors.unavailable.size(), 1u);
  EXPECT_NE(monitors.unavailable[0].reason.find("EAGAIN"), std::string::npos);
  EXPECT_NE(monitors.unavailable[0].reason.find("gave up"), std::string::npos) << monitors.unavailable[0].reason;
  EXPECT_EQ(monitors.devices[0].rails[0].power_mw, 999);  // POM_5V_IN, its own power file
  EXPECT_EQ(monitors.devices[0].rails[1].power_mw, 50);   // POM_5V_GPU from 5000 mV x 10 mA
}

// AGX Thor: the carrier's INA238 (hwmon `ina238`: in1 bus mV, curr1 mA, power1 µW, no labels)
// measures the whole board input; the module INA3221's VIN_SYS_5V0 is fed from it and is never
// added to a total.
TEST(PowerMonitorsTest, CarrierIna238IsTheBoardInputAndVinSys5v0ASubRail) {
  BoardTree tree(
      "link /sys/class/hwmon/hwmon2 -> ../../devices/platform/i2c-2/2-0040/hwmon/hwmon2\n"
      "file /sys/devices/platform/i2c-2/2-0040/hwmon/hwmon2/name = ina3221\n"
      "repeat N,LABEL,MV,MA in 1:VDD_GPU:19968:100 2:VDD_CPU_SOC_MSS:19968:300 3:VIN_SYS_5V0:5000:1100\n"
      "file /sys/devices/platform/i2c-2/2-0040/hwmon/hwmon2/in{N}_label = {LABEL}\n"
      "file /sys/devices/platform/i2c-2/2-0040/hwmon/hwmon2/in{N}_input = {MV}\n"
      "file /sys/devices/platform/i2c-2/2-0040/hwmon/hwmon2/curr{N}_input = {MA}\n"
      "end\n"
      "link /sys/class/hwmon/hwmon5 -> ../../devices/platform/i2c-1/1-0044/hwmon/hwmon5\n"
      "file /sys/devices/platform/i2c-1/1-0044/hwmon/hwmon5/name = ina238\n"
      "file /sys/devices/platform/i2c-1/1-0044/hwmon/hwmon5/in0_input = 4\n"
      "file /sys/devices/platform/i2c-1/1-0044/hwmon/hwmon5/in1_input = 19893\n"
      "file /sys/devices/platform/i2c-1/1-0044/hwmon/hwmon5/curr1_input = 994\n"
      "file /sys/devices/platform/i2c-1/1-0044/hwmon/hwmon5/power1_input = 19780000\n");
  const auto monitors = discover_power_monitors(tree.root());
  ASSERT_EQ(monitors.devices.size(), 2u);
  const auto& ina238 =
      monitors.devices[0].driver == PowerMonitorDriver::kIna238Hwmon ? monitors.devices[0] : monitors.devices[1];
  ASSERT_EQ(ina238.driver, PowerMonitorDriver::kIna238Hwmon);
  ASSERT_EQ(ina238.rails.size(), 1u);
  EXPECT_EQ(ina238.rails[0].name, "VIN");
  EXPECT_EQ(ina238.rails[0].power_mw, 19780);  // from its own µW register, not V x I
  EXPECT_EQ(ina238.rails[0].power_mw_per_unit, 0.001);
  EXPECT_EQ(monitors.board_input_rail, "VIN");
  EXPECT_EQ(monitors.total_kind, "board input rail");
  EXPECT_THAT(monitors.sub_rails, ElementsAre("VIN_SYS_5V0"));
}
