#include "jetson/energy/window_energy.h"
#include "tests/jetson/energy/nanoseconds.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::energy {
namespace {

// AGX-Orin-like rails: no board input, one sub-rail fed by VIN_SYS_5V0.
PowerTrace orin_trace() {
  PowerTrace trace({{"VDD_GPU_SOC", RailRole::kModule},
                    {"VDD_CPU_CV", RailRole::kModule},
                    {"VIN_SYS_5V0", RailRole::kModule},
                    {"VDDQ_VDD2_1V8AO", RailRole::kSubRail}});
  // 0..10 s idle at 2000/800/3500/300, 10..20 s load at 8000/4000/4000/500 (steps between
  // samples at 10 s and 10.001 s keep the signal piecewise linear).
  for (std::int64_t ms = 0; ms <= 20'000; ms += 100) {
    const bool load = ms > 10'000;
    trace.append(ms * 1'000'000,
                 {load ? 8000.0 : 2000.0, load ? 4000.0 : 800.0, load ? 4000.0 : 3500.0, load ? 500.0 : 300.0});
  }
  return trace;
}

TEST(WindowEnergy, ModuleSumIsLabelledAndExcludesSubRails) {
  const auto trace = orin_trace();
  const auto def = total_definition(trace);
  EXPECT_EQ(def.source, TotalDefinition::Source::kModuleSum);
  EXPECT_EQ(def.label, "sum of module rails (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0)");
  const auto e = window_energy(trace, "idle", 1 * kS, 9 * kS);
  ASSERT_TRUE(e.total_energy_mj);
  EXPECT_NEAR(*e.total_energy_mj, (2000.0 + 800.0 + 3500.0) * 8.0, 1e-9);
  ASSERT_EQ(e.rails.size(), 4u);
  EXPECT_NEAR(*e.rails[3].energy.energy_mj, 300.0 * 8.0, 1e-9);
  EXPECT_NEAR(*e.rails[0].mean_power_mw, 2000.0, 1e-9);
}

TEST(WindowEnergy, BoardInputIsTheTotalWhereItExists) {
  PowerTrace trace({{"VDD_IN", RailRole::kBoardInput}, {"VDD_CPU_GPU_CV", RailRole::kModule}});
  trace.append(0, {5000.0, 2000.0});
  trace.append(2 * kS, {7000.0, 3000.0});
  const auto e = window_energy(trace, "w", 0, 2 * kS);
  EXPECT_EQ(e.total.source, TotalDefinition::Source::kBoardInput);
  EXPECT_EQ(e.total.label, "board input VDD_IN");
  ASSERT_TRUE(e.total_energy_mj);
  EXPECT_DOUBLE_EQ(*e.total_energy_mj, 12000.0);
}

TEST(WindowEnergy, IncrementalEnergyAndPerUnitFigures) {
  const auto trace = orin_trace();
  const Baseload idle = measure_baseload(trace, 0, 10 * kS);
  ASSERT_TRUE(idle.total_power_mw);
  EXPECT_NEAR(*idle.total_power_mw, 6300.0, 1e-9);
  EXPECT_NEAR(*idle.rails[0].stddev_mw, 0.0, 1e-9);
  EXPECT_EQ(idle.rails[0].samples, 101u);

  WindowRecorder recorder;
  recorder.begin("epoch", WindowKind::kEpoch, 12 * kS);
  const Window& w = recorder.end("epoch", 20 * kS, /*minibatches=*/8, /*samples=*/128);
  const auto e = window_energy(trace, w, {Integration::kTrapezoid, &idle});
  ASSERT_TRUE(e.total_energy_mj);
  EXPECT_NEAR(*e.total_energy_mj, 16000.0 * 8.0, 1e-9);
  ASSERT_TRUE(e.incremental_energy_mj);
  EXPECT_NEAR(*e.incremental_energy_mj, (16000.0 - 6300.0) * 8.0, 1e-9);
  EXPECT_NEAR(*e.joules_per_minibatch, 16.0, 1e-12);
  EXPECT_NEAR(*e.joules_per_sample, 1.0, 1e-12);
}

TEST(WindowEnergy, IncompleteCoverageGivesNoTotal) {
  const auto e = window_energy(orin_trace(), "late", 19 * kS, 25 * kS);
  EXPECT_FALSE(e.total_energy_mj);
  EXPECT_FALSE(e.rails[0].energy.complete);
}

TEST(WindowEnergy, BaseloadSpreadIsThePopulationStddev) {
  PowerTrace trace({{"VDD_IN", RailRole::kBoardInput}});
  trace.append(0, {1000.0});
  trace.append(kS, {3000.0});
  trace.append(2 * kS, {1000.0});
  trace.append(3 * kS, {3000.0});
  const auto b = measure_baseload(trace, 0, 3 * kS);
  EXPECT_DOUBLE_EQ(*b.rails[0].mean_power_mw, 2000.0);
  EXPECT_DOUBLE_EQ(*b.rails[0].stddev_mw, 1000.0);
  EXPECT_DOUBLE_EQ(*b.rails[0].min_mw, 1000.0);
  EXPECT_DOUBLE_EQ(*b.rails[0].max_mw, 3000.0);
  EXPECT_THROW(measure_baseload(trace, kS, kS), std::invalid_argument);
}

TEST(WindowEnergy, RejectsOpenWindowsAndMismatchedBaseload) {
  WindowRecorder recorder;
  recorder.begin("run", WindowKind::kRun, 0);
  EXPECT_THROW(window_energy(orin_trace(), recorder.windows()[0]), std::invalid_argument);
  PowerTrace other({{"VDD_IN", RailRole::kBoardInput}});
  other.append(0, {1.0});
  other.append(kS, {1.0});
  const Baseload idle = measure_baseload(other, 0, kS);
  WindowEnergyOptions options;
  options.baseload = &idle;
  EXPECT_THROW(window_energy(orin_trace(), "w", 0, kS, options), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::jetson::energy
