// ProfiledRange: each knob's range over the profiled modes and the knobs of a mode outside it.
#include "analysis/profiled_range.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tests/analysis/ground_truths.h"

namespace jetchar::analysis {
namespace {

using testing::grid_mode;

TEST(ProfiledRange, SpansEachKnobOfTheProfiledModes) {
  const std::vector<PowerMode> profiled = {grid_mode(2, 1.3440, 0.510, 3.199), grid_mode(12, 0.7296, 1.3005, 0.6656),
                                           grid_mode(4, 2.2016, 0.306, 1.600)};
  const ProfiledRange range(profiled);
  ASSERT_EQ(range.knobs().size(), 4u);
  EXPECT_EQ(range.knobs()[0].knob, "cpu_cores");
  EXPECT_EQ(range.knobs()[0].low, 2);
  EXPECT_EQ(range.knobs()[0].high, 12);
  EXPECT_EQ(range.knobs()[1].low, 729600);
  EXPECT_EQ(range.knobs()[1].high, 2201600);
  EXPECT_EQ(range.knobs()[2].knob, "gpu_freq_khz");
  EXPECT_EQ(range.knobs()[2].low, 306000);
  EXPECT_EQ(range.knobs()[3].high, 3199000);

  // Inside every range, the edges included: nothing extrapolates.
  EXPECT_TRUE(range.outside(grid_mode(6, 1.0368, 1.3005, 0.6656)).empty());
  // One core is below the profiled 2..12; the clocks are inside.
  auto below = range.outside(grid_mode(1, 1.0368, 0.918, 2.133));
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].knob, "cpu_cores");
  EXPECT_EQ(below[0].low, 2);
  // Two knobs beyond, in knobs() order.
  auto two = range.outside(grid_mode(6, 1.0368, 1.4, 0.4));
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].knob, "gpu_freq_khz");
  EXPECT_EQ(two[1].knob, "emc_freq_khz");
}

TEST(ProfiledRange, AModeWithoutItsKnobsIsNamed) {
  EXPECT_THROW(ProfiledRange(std::vector<PowerMode>{}), std::invalid_argument);
  PowerMode named;
  named.name = "15W";
  try {
    const ProfiledRange range{std::vector<PowerMode>{named}};
    FAIL() << "a mode without knobs was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'15W'"), std::string::npos) << e.what();
  }
  const ProfiledRange range(std::vector<PowerMode>{grid_mode(4, 1.3440, 0.510, 1.600)});
  EXPECT_THROW(range.outside(named), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::analysis
