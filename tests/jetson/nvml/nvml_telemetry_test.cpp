// NVML GPUs in the telemetry sampler: polled power and the energy counter every sample, clocks,
// utilisation, memory and temperature at the sub-rate, and a window's energy from the counter
// equal to the counter's difference (the simulated GPU of tests/jetson/fake_nvml).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <time.h>

#include <cmath>
#include <thread>

#include "jetson/energy/window_energy.h"
#include "jetson/nvml/nvml_library.h"
#include "jetson/telemetry/telemetry_discovery.h"
#include "jetson/telemetry/telemetry_sampler.h"
#include "tests/jetson/fake_nvml/fake_nvml_env.h"

namespace jetchar::jetson {
namespace {

using testing::FakeNvmlEnv;
using ::testing::HasSubstr;

TelemetrySources nvml_only_sources() {
  TelemetrySources sources;
  sources.cpu_utilization = false;
  sources.memory = false;
  add_nvml_sources(sources, NvmlLibrary::open());
  return sources;
}

double field(const TelemetryLayout& layout, const TelemetrySample& sample, std::string_view name) {
  const auto index = layout.find(name);
  EXPECT_TRUE(index) << name;
  if (!index) return NAN;
  const auto value = sample.values[*index].get();
  EXPECT_TRUE(value) << name;
  return value.value_or(NAN);
}

TEST(NvmlTelemetryTest, EachGpuGetsPowerRailsCounterAndSubRateFields) {
  FakeNvmlEnv env;
  env.set("JETCHAR_FAKE_NVML_GPUS", "2");
  env.set_state("gpu0.load_pct", "50");
  env.set_state("gpu1.load_pct", "0");
  const TelemetrySources sources = nvml_only_sources();
  ASSERT_EQ(sources.nvml_gpus.size(), 2u);
  EXPECT_EQ(sources.nvml_gpus[1].name, "nvml1");
  TelemetrySampler sampler(sysfs::Root("/"), sources, {100.0});
  const TelemetryLayout& layout = sampler.layout();
  // The counter is the GPU's energy; the polled power and the averaged and instant power fields
  // measure it again: sub-rails, never in a total.
  ASSERT_EQ(layout.rails.size(), 8u);
  EXPECT_EQ(layout.rails[0].name, "nvml0_energy");
  EXPECT_EQ(layout.rails[0].role, energy::RailRole::kModule);
  EXPECT_TRUE(layout.rails[0].from_counter);
  EXPECT_EQ(layout.rails[1].name, "nvml0_power");
  EXPECT_EQ(layout.rails[1].role, energy::RailRole::kSubRail);
  EXPECT_FALSE(layout.rails[1].from_counter);
  EXPECT_EQ(layout.rails[2].name, "nvml0_power_average");
  EXPECT_EQ(layout.rails[2].role, energy::RailRole::kSubRail);
  EXPECT_EQ(layout.rails[3].name, "nvml0_power_instant");
  EXPECT_EQ(layout.rails[3].role, energy::RailRole::kSubRail);
  EXPECT_EQ(layout.fields[*layout.find("nvml0.sm_clock_mhz")].group, FieldGroup::kNvmlGpu);
  EXPECT_EQ(layout.fields[*layout.find("nvml0.temp_mc")].group, FieldGroup::kTemperature);

  const TelemetrySample first = sampler.sample_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const TelemetrySample second = sampler.sample_now();
  EXPECT_FALSE(first.values[*layout.find("nvml0_energy.power_mw")].valid());  // no interval yet
  EXPECT_EQ(field(layout, second, "nvml0_power.power_mw"), 175'000);
  EXPECT_EQ(field(layout, second, "nvml1_power.power_mw"), 30'000);
  EXPECT_EQ(field(layout, second, "nvml0_power_instant.power_mw"), 175'000);
  EXPECT_EQ(field(layout, second, "nvml1_power_instant.power_mw"), 30'000);
  EXPECT_GT(field(layout, second, "nvml0_power_average.power_mw"), 0);
  // The counter's rate over the 200 ms between the samples, from whole mJ (5 mW), within 3 % of
  // the model's power: the fake advances its counter by its own clock when it is called, apart
  // from the sampler's timestamp, and a loaded host (another test on both cores) can put a few
  // milliseconds between the two; over 30 ms with a 1 W bound that failed once under ctest -j2.
  EXPECT_NEAR(field(layout, second, "nvml0_energy.power_mw"), 175'000, 0.03 * 175'000);
  EXPECT_EQ(field(layout, second, "nvml0.graphics_clock_mhz"), 1695);
  EXPECT_EQ(field(layout, second, "nvml0.memory_clock_mhz"), 9751);
  EXPECT_EQ(field(layout, second, "nvml0.util_pct"), 50);
  EXPECT_EQ(field(layout, second, "nvml0.temp_mc"), 55'000);
  EXPECT_EQ(field(layout, second, "nvml1.graphics_clock_mhz"), 210);
  EXPECT_NEAR(field(layout, second, "nvml0.memory_used_kib"), (1 + 0.5 * 0.2 * 10) * 1024 * 1024, 1);
}

TEST(NvmlTelemetryTest, WhatAJetsonsNvmlRefusesIsLeftOutWithItsReason) {
  FakeNvmlEnv env;
  env.set("JETCHAR_FAKE_NVML_PROFILE", "jetson");
  TelemetrySampler sampler(sysfs::Root("/"), nvml_only_sources(), {100.0});
  EXPECT_TRUE(sampler.layout().rails.empty());
  EXPECT_TRUE(sampler.layout().find("nvml0.util_pct"));
  EXPECT_THAT(sampler.notes(),
              ::testing::Contains(HasSubstr(
                  "NVML GPU nvml0 power: nvmlDeviceGetPowerUsage: Not Supported (NVML_ERROR_NOT_SUPPORTED, 3)")));
  EXPECT_THAT(sampler.notes(),
              ::testing::Contains(HasSubstr("NVML GPU nvml0 energy counter: nvmlDeviceGetTotalEnergyConsumption")));
  EXPECT_THAT(sampler.notes(), ::testing::Contains(HasSubstr("NVML GPU nvml0 average power: nvmlDeviceGetFieldValues "
                                                             "(field 185): Not Supported")));
}

TEST(NvmlTelemetryTest, WithoutNvmlTheSourcesSayWhy) {
  FakeNvmlEnv env;
  env.set(kNvmlLibraryEnv, "/nonexistent/libnvidia-ml.so.1");
  const TelemetrySources sources = nvml_only_sources();
  EXPECT_TRUE(sources.nvml_gpus.empty());
  EXPECT_EQ(sources.nvml, nullptr);
  ASSERT_EQ(sources.notes.size(), 1u);
  EXPECT_THAT(sources.notes[0], HasSubstr("NVML: NVML library /nonexistent/libnvidia-ml.so.1 cannot be loaded"));
}

// A load step inside a window: the counter charges each interval with the power the GPU drew in
// it (the step takes effect when NVML next sees the state), so the window's energy from the
// counter channel is the sum of those, whatever the window's integration method.
TEST(NvmlTelemetryTest, AWindowsEnergyFromTheCounterIsTheCountersDifference) {
  FakeNvmlEnv env;
  env.set_state("gpu0.load_pct", "20");  // 30 + 290 × 0.2 = 88 W
  TelemetrySampler sampler(sysfs::Root("/"), nvml_only_sources(), {100.0});
  const TelemetryLayout& layout = sampler.layout();
  energy::PowerTrace trace(layout.power_channels());
  std::vector<TelemetrySample> samples;
  const auto take = [&] {
    samples.push_back(sampler.sample_now());
    append_power(layout, samples.back(), trace);
  };
  take();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  take();
  env.set_state("gpu0.load_pct", "80");  // 30 + 290 × 0.8 = 262 W, from the next NVML call on
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  take();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  take();
  const auto seconds = [&](std::size_t a, std::size_t b) {
    return static_cast<double>(samples[b].time_ns - samples[a].time_ns) / 1e9;
  };
  const double expected_mj = 88'000 * seconds(0, 2) + 262'000 * seconds(2, 3);
  const auto result = energy::window_energy(trace, "run", samples.front().time_ns, samples.back().time_ns);
  const auto counter =
      std::find_if(result.rails.begin(), result.rails.end(), [](const auto& r) { return r.name == "nvml0_energy"; });
  ASSERT_NE(counter, result.rails.end());
  ASSERT_TRUE(counter->energy.energy_mj);
  // Exactly the difference of two whole-mJ counter readings (each sample's power is its interval's
  // counter difference over the interval's length) ...
  EXPECT_NEAR(*counter->energy.energy_mj, std::round(*counter->energy.energy_mj), 1e-6);
  // ... and the model's energy, up to the time between a sample's timestamp and NVML's reading
  // (microseconds; 1 % allows a millisecond of descheduling on a busy machine).
  EXPECT_NEAR(*counter->energy.energy_mj, expected_mj, expected_mj * 0.01);
  EXPECT_TRUE(counter->energy.complete);
  // The total is the counter's (the polled channel is a sub-rail).
  ASSERT_TRUE(result.total_energy_mj);
  EXPECT_DOUBLE_EQ(*result.total_energy_mj, *counter->energy.energy_mj);
}

TEST(NvmlTelemetryTest, ACounterChannelIntegratesAsABackwardRectangle) {
  energy::PowerTrace trace(
      {{"counter", energy::RailRole::kModule, true}, {"polled", energy::RailRole::kSubRail, false}});
  trace.append(0, {std::nullopt, 100.0});
  trace.append(1'000'000'000, {100.0, 100.0});
  trace.append(2'000'000'000, {300.0, 300.0});
  const auto result = energy::window_energy(trace, "w", 0, 2'000'000'000);
  EXPECT_DOUBLE_EQ(*result.rails[0].energy.energy_mj, 400.0);  // 100 mW over (0,1], 300 mW over (1,2]
  EXPECT_DOUBLE_EQ(*result.rails[1].energy.energy_mj, 300.0);  // trapezoid: 100 + 200
}

}  // namespace
}  // namespace jetchar::jetson
