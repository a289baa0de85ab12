#include "jetson/telemetry/telemetry_discovery.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "jetson/energy/baseload.h"
#include "jetson/simulated/board_fixture.h"
#include "jetson/telemetry/telemetry_sampler.h"

namespace jetchar::jetson {
namespace {

const RailSource* rail(const TelemetrySources& sources, std::string_view name) {
  for (const auto& r : sources.rails) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(TelemetryDiscoveryFixture, AgxOrinHasNoInputRailAndOneSubRail) {
  const ExpandedFixture tree("agx-orin-r36");
  const sysfs::Root root(tree.root_dir());
  const TelemetrySources sources = discover_telemetry_sources(root);
  ASSERT_TRUE(rail(sources, "VDD_GPU_SOC"));
  ASSERT_TRUE(rail(sources, "VDDQ_VDD2_1V8AO"));
  EXPECT_FALSE(rail(sources, "NC"));
  EXPECT_EQ(rail(sources, "VDD_GPU_SOC")->role, energy::RailRole::kModule);
  EXPECT_EQ(rail(sources, "VDDQ_VDD2_1V8AO")->role, energy::RailRole::kSubRail);
  EXPECT_FALSE(rail(sources, "VDD_GPU_SOC")->power_path);  // hwmon: no power file
  ASSERT_FALSE(sources.power_monitors.empty());
  EXPECT_TRUE(sources.power_monitors[0].update_interval_ms);
  EXPECT_FALSE(sources.cpu_clusters.empty());
  EXPECT_TRUE(sources.gpu_freq_path);

  TelemetrySampler sampler(root, sources, {100.0});
  const auto sample = sampler.sample_now();
  const auto& layout = sampler.layout();
  const auto v = sample.values[*layout.find("VDD_GPU_SOC.voltage_mv")].get();
  const auto i = sample.values[*layout.find("VDD_GPU_SOC.current_ma")].get();
  const auto p = sample.values[*layout.find("VDD_GPU_SOC.power_mw")].get();
  ASSERT_TRUE(v && i && p);
  EXPECT_DOUBLE_EQ(*p, *v * *i / 1000.0);
  EXPECT_TRUE(sample.values[*layout.find("gpu.freq_hz")].valid());
}

TEST(TelemetryDiscoveryFixture, NanoUsesTheIioPowerFileAndItsInputRail) {
  const ExpandedFixture tree("nano-r32");
  const sysfs::Root root(tree.root_dir());
  const TelemetrySources sources = discover_telemetry_sources(root);
  const RailSource* input = rail(sources, "POM_5V_IN");
  ASSERT_TRUE(input);
  EXPECT_EQ(input->role, energy::RailRole::kBoardInput);
  EXPECT_TRUE(input->power_path);
  ASSERT_FALSE(sources.power_monitors.empty());
  EXPECT_EQ(sources.power_monitors[0].driver.find("iio") != std::string::npos, true);
}

TEST(TelemetryDiscoveryFixture, EveryFixtureSamplesItsRails) {
  const auto fixtures = list_board_fixtures();
  ASSERT_FALSE(fixtures.empty());
  for (const auto& name : fixtures) {
    const ExpandedFixture tree(name);
    const sysfs::Root root(tree.root_dir());
    const TelemetrySources sources = discover_telemetry_sources(root);
    EXPECT_FALSE(sources.rails.empty()) << name;
    TelemetrySampler sampler(root, sources, {100.0});
    const auto sample = sampler.sample_now();
    for (const auto& r : sampler.layout().rails) {
      EXPECT_TRUE(sample.values[r.power_mw].valid()) << name << " " << r.name;
    }
    energy::PowerTrace trace(sampler.layout().power_channels());
    const auto total = energy::total_definition(trace);
    EXPECT_NE(total.source, energy::TotalDefinition::Source::kNone) << name;
  }
}

}  // namespace
}  // namespace jetchar::jetson
