#include "analysis/chart_labels.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

ConfigKey key(PowerMode mode, std::map<std::string, std::string> axes = {}) {
  return {"lenet5", std::move(mode), std::move(axes)};
}

PowerMode named(const std::string& name) {
  PowerMode m;
  m.name = name;
  return m;
}

TEST(ChartLabels, PresetsByNameCustomModesByTheKnobsThatDiffer) {
  PowerMode slow = testing::make_mode(4, 1.728, 0.306, 3.199), fast = testing::make_mode(12, 1.728, 1.3005, 3.199);
  slow.name = "custom: 4 cores CPU/GPU/EMC 1728/306/3199 MHz DVFS off";
  fast.name = "custom: 12 cores CPU/GPU/EMC 1728/1300.5/3199 MHz DVFS off";
  const std::vector<ConfigKey> keys = {key(named("MAXN")), key(named("30W")), key(slow), key(fast)};
  EXPECT_EQ(chart_labels(keys),
            (std::vector<std::string>{"MAXN", "30W", "4 cores GPU 306 MHz", "12 cores GPU 1300.5 MHz"}));
}

TEST(ChartLabels, TheAxesThatDifferFollowAndASharedModeIsLeftOut) {
  const std::map<std::string, std::string> b1 = {{"batch", "1"}, {"precision", "FP32"}},
                                           b8 = {{"batch", "8"}, {"precision", "FP32"}};
  EXPECT_EQ(chart_labels(std::vector<ConfigKey>{key(named("as found"), b1), key(named("as found"), b8)}),
            (std::vector<std::string>{"batch=1", "batch=8"}));
  EXPECT_EQ(chart_labels(std::vector<ConfigKey>{key(named("MAXN"), b1), key(named("15W"), b8)}),
            (std::vector<std::string>{"MAXN batch=1", "15W batch=8"}));
  // One configuration: its mode, with every knob when it has no short name.
  EXPECT_EQ(chart_labels(std::vector<ConfigKey>{key(testing::make_mode(8, 2.2016, 1.3005, 3.199))}),
            (std::vector<std::string>{"8 cores CPU 2201.6 GPU 1300.5 EMC 3199 MHz"}));
}

}  // namespace
}  // namespace jetchar::analysis
