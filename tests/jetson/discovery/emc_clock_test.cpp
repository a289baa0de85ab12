#include "jetson/discovery/emc_clock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_emc_clock;
using jetchar::jetson::EmcAccess;
using jetchar::testing::BoardTree;
using ::testing::HasSubstr;

TEST(EmcClockTest, BpmpDebugfsWithPossibleRatesInKhz) {
  BoardTree tree(
      "file /sys/kernel/debug/bpmp/debug/clk/emc/rate = 2133000000\n"
      "file /sys/kernel/debug/bpmp/debug/clk/emc/max_rate = 3199000000\n"
      "file /sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked = 1\n"
      "file /sys/kernel/debug/bpmp/debug/emc/possible_rates = 204000 3199000\n"
      "file /sys/kernel/nvpmodel_emc_cap/emc_iso_cap = 0\n");
  const auto emc = discover_emc_clock(tree.root());
  EXPECT_EQ(emc.access, EmcAccess::kReadable);
  EXPECT_EQ(emc.interface, "bpmp debugfs");
  EXPECT_EQ(emc.cur_rate_hz, 2133000000);
  EXPECT_FALSE(emc.min_rate_hz);
  EXPECT_EQ(emc.max_rate_hz, 3199000000);
  EXPECT_EQ(emc.rate_locked, true);
  EXPECT_EQ(emc.possible_rates_hz, (std::vector<std::int64_t>{204000000, 3199000000}));
  // emc_iso_cap 0 means "no cap": the cap file is known, the cap is absent.
  EXPECT_EQ(emc.cap_path, "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap");
  EXPECT_FALSE(emc.cap_hz);
}

TEST(EmcClockTest, Tegra210AndCcfNoCapValue) {
  BoardTree nano(
      "file /sys/kernel/debug/clk/override.emc/clk_rate = 1600000000\n"
      "file /sys/kernel/debug/tegra_bwmgr/emc_max_rate = 1600000000\n"
      "file /sys/kernel/debug/clk/override.emc/clk_state = 0\n");
  const auto emc = discover_emc_clock(nano.root());
  EXPECT_EQ(emc.interface, "tegra210 clk debugfs");
  EXPECT_EQ(emc.rate_locked, false);
  BoardTree ccf(
      "file /sys/kernel/debug/clk/emc/clk_rate = 2133000000\n"
      "file /sys/kernel/debug/clk/emc/clk_max_rate = 18446744073709551615\n"
      "file /sys/kernel/nvpmodel_clk_cap/emc = 2133000000\n");
  const auto orin = discover_emc_clock(ccf.root());
  EXPECT_EQ(orin.interface, "clk debugfs");
  EXPECT_FALSE(orin.max_rate_hz);
  EXPECT_EQ(orin.cap_hz, 2133000000);
}

TEST(EmcClockTest, UnreadableDebugfsNeedsRootAndNoInterfaceIsAbsent) {
  BoardTree user("dir /sys/kernel/debug\nfile /sys/kernel/nvpmodel_emc_cap/emc_iso_cap = 1600000000\n");
  const auto emc = discover_emc_clock(user.root());
  EXPECT_EQ(emc.access, EmcAccess::kNeedsRoot);
  EXPECT_THAT(*emc.note, HasSubstr("needs root"));
  EXPECT_EQ(emc.cap_hz, 1600000000);
  BoardTree host("file /sys/kernel/debug/something = 1\n");
  EXPECT_EQ(discover_emc_clock(host.root()).access, EmcAccess::kAbsent);
}
