#include "jetson/discovery/fan.h"

#include <gtest/gtest.h>

#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_fans;
using jetchar::testing::BoardTree;

TEST(FanTest, R32PwmFan) {
  BoardTree tree(
      "file /sys/devices/pwm-fan/target_pwm = 77\nfile /sys/devices/pwm-fan/rpm = 1200\n"
      "file /sys/devices/pwm-fan/temp_control = 0\n");
  const auto f = discover_fans(tree.root());
  ASSERT_EQ(f.fans.size(), 1u);
  EXPECT_EQ(f.fans[0].pwm, 77);
  EXPECT_EQ(f.fans[0].rpm_path, "/sys/devices/pwm-fan/rpm");
  EXPECT_EQ(f.fans[0].rpm, 1200);
  EXPECT_EQ(f.fans[0].kernel_control, false);
}

TEST(FanTest, HwmonPwmfanWithSeparateTachAtAnyIndex) {
  BoardTree tree(
      "link /sys/class/hwmon/hwmon9 -> ../../devices/platform/pwm-fan/hwmon/hwmon9\n"
      "file /sys/devices/platform/pwm-fan/hwmon/hwmon9/name = pwmfan\n"
      "file /sys/devices/platform/pwm-fan/hwmon/hwmon9/pwm1 = 255\n"
      "link /sys/class/hwmon/hwmon0 -> ../../devices/platform/tach/hwmon/hwmon0\n"
      "file /sys/devices/platform/tach/hwmon/hwmon0/name = pwm_tach\n"
      "file /sys/devices/platform/tach/hwmon/hwmon0/rpm = 3000\n");
  const auto f = discover_fans(tree.root());
  ASSERT_EQ(f.fans.size(), 1u);
  EXPECT_EQ(f.fans[0].pwm_path, "/sys/devices/platform/pwm-fan/hwmon/hwmon9/pwm1");
  EXPECT_EQ(f.fans[0].pwm, 255);
  EXPECT_EQ(f.fans[0].rpm, 3000);
  EXPECT_FALSE(f.fans[0].kernel_control);
}

TEST(FanTest, NoFanIsAbsent) {
  BoardTree tree("dir /sys/class/hwmon\n");
  const auto f = discover_fans(tree.root());
  EXPECT_TRUE(f.fans.empty());
  EXPECT_TRUE(f.absent);
}
