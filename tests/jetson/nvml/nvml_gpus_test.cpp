// Reading NVML's GPUs: every value present on the simulated desktop GPU, each value a Jetson's
// NVML refuses absent with NVML's reason (never 0).
#include "jetson/nvml/nvml_gpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/jetson/fake_nvml/fake_nvml_env.h"

namespace jetchar::jetson {
namespace {

using testing::FakeNvmlEnv;
using ::testing::HasSubstr;

TEST(NvmlGpusTest, ADesktopGpuShowsPowerEnergyClocksLimitsAndTables) {
  FakeNvmlEnv env;
  env.set_state("gpu0.load_pct", "50");
  const NvmlDiscovery d = discover_nvml();
  ASSERT_FALSE(d.absent) << *d.absent;
  EXPECT_EQ(d.driver_version, "fake-nvml 1.0");
  ASSERT_EQ(d.gpus.size(), 1u);
  const NvmlGpu& g = d.gpus[0];
  EXPECT_EQ(g.name.value, "jetchar simulated GPU");
  // The model: 30 W + 290 W × 0.5 at 1695 MHz, under the 350 W default limit.
  EXPECT_EQ(g.power_mw.value, 175'000u);
  EXPECT_EQ(g.power_instant_mw.value, 175'000u);
  EXPECT_TRUE(g.power_average_mw.value);
  ASSERT_TRUE(g.energy_mj.value);
  EXPECT_EQ(g.graphics_clock_mhz.value, 1695u);
  EXPECT_EQ(g.sm_clock_mhz.value, 1695u);
  EXPECT_EQ(g.memory_clock_mhz.value, 9751u);
  EXPECT_EQ(g.temperature_c.value, 55u);
  EXPECT_EQ(g.gpu_util_pct.value, 50u);
  EXPECT_EQ(g.memory_util_pct.value, 25u);
  EXPECT_EQ(g.memory_total_bytes.value, 24ULL << 30);
  EXPECT_EQ(g.power_limit_mw.value, 350'000u);
  EXPECT_EQ(g.default_power_limit_mw.value, 350'000u);
  EXPECT_EQ(g.enforced_power_limit_mw.value, 350'000u);
  EXPECT_EQ(g.power_limit_range_mw.value, (std::pair<std::uint64_t, std::uint64_t>{100'000, 350'000}));
  EXPECT_EQ(g.clock_event_reasons.value, std::vector<std::string>{});
  EXPECT_EQ(g.memory_clocks_mhz.value->front(), 9751u);
  EXPECT_EQ(g.graphics_clocks_mhz.value->front(), 1695u);
  EXPECT_EQ(g.graphics_clocks_mhz.value->back(), 210u);
}

TEST(NvmlGpusTest, TheAveragedPowerFieldIsTheLastSecondsMean) {
  FakeNvmlEnv env;
  env.set_state("gpu0.load_pct", "20");
  // One library open throughout, as a sampling process holds it: the driver's history stays.
  const NvmlLibrary::Opened nvml = NvmlLibrary::open();
  ASSERT_TRUE(nvml.library) << nvml.absent.value_or("");
  ASSERT_EQ(discover_nvml(nvml).gpus.size(), 1u);  // the driver takes up the new load from here on
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  env.set_state("gpu0.load_pct", "80");  // the instant changes now; the last second's mean barely does
  const NvmlDiscovery d = discover_nvml(nvml);
  ASSERT_EQ(d.gpus.size(), 1u);
  const NvmlGpu& g = d.gpus[0];
  EXPECT_EQ(g.power_instant_mw.value, 30'000u + 232'000u);  // 30 W + 290 W × 0.8
  ASSERT_TRUE(g.power_average_mw.value);
  EXPECT_NEAR(static_cast<double>(*g.power_average_mw.value), 30'000.0 + 58'000.0, 5'000.0);  // 30 W + 290 W × 0.2
}

TEST(NvmlGpusTest, APowerLimitBelowTheDrawCapsClocksAndSaysSo) {
  FakeNvmlEnv env;
  env.set_state("gpu0.load_pct", "100");
  env.set_state("gpu0.power_limit_mw", "200000");
  const NvmlDiscovery d = discover_nvml();
  ASSERT_EQ(d.gpus.size(), 1u);
  const NvmlGpu& g = d.gpus[0];
  EXPECT_LE(*g.power_mw.value, 200'000u);
  EXPECT_LT(*g.graphics_clock_mhz.value, 1695u);
  EXPECT_EQ(g.clock_event_reasons.value, std::vector<std::string>{"sw_power_cap"});
}

TEST(NvmlGpusTest, WhatAJetsonsNvmlRefusesIsAbsentWithTheReasonNeverZero) {
  FakeNvmlEnv env;
  env.set("JETCHAR_FAKE_NVML_PROFILE", "jetson");
  const NvmlDiscovery d = discover_nvml();
  ASSERT_EQ(d.gpus.size(), 1u);
  const NvmlGpu& g = d.gpus[0];
  EXPECT_FALSE(g.power_mw.value);
  EXPECT_EQ(g.power_mw.absent, "nvmlDeviceGetPowerUsage: Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)");
  EXPECT_FALSE(g.energy_mj.value);
  EXPECT_THAT(*g.energy_mj.absent, HasSubstr("nvmlDeviceGetTotalEnergyConsumption: Not Supported"));
  EXPECT_FALSE(g.power_average_mw.value);
  EXPECT_EQ(g.power_average_mw.absent,
            "nvmlDeviceGetFieldValues (field 185): Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)");
  EXPECT_FALSE(g.power_instant_mw.value);
  EXPECT_FALSE(g.power_limit_mw.value);
  EXPECT_FALSE(g.power_limit_range_mw.value);
  EXPECT_FALSE(g.memory_clocks_mhz.value);
  EXPECT_FALSE(g.graphics_clocks_mhz.value);
  EXPECT_TRUE(g.graphics_clocks_mhz.absent);
  // Load, clocks, temperature and memory still come through (AGX Thor's GPU load is NVML's).
  EXPECT_EQ(g.gpu_util_pct.value, 0u);
  EXPECT_EQ(g.graphics_clock_mhz.value, 210u);
  EXPECT_TRUE(g.temperature_c.value);
  EXPECT_TRUE(g.memory_used_bytes.value);
}

TEST(NvmlGpusTest, ClockEventReasonsAreNamedAndUnknownBitsKept) {
  EXPECT_EQ(clock_event_reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(clock_event_reason_names(0x1 | 0x4 | 0x40),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(clock_event_reason_names(0x8000), std::vector<std::string>{"0x8000"});
}

}  // namespace
}  // namespace jetchar::jetson
