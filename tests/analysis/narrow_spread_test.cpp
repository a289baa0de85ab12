#include "analysis/narrow_spread.h"

#include <gtest/gtest.h>

#include <vector>

namespace jetchar::analysis {
namespace {

TEST(NarrowSpread, ValuesWithinTenPercentOfEachOtherAreNarrow) {
  const std::vector<double> times = {0.1212, 0.12, 0.12252};
  const auto spread = narrow_spread(times);
  ASSERT_TRUE(spread);
  EXPECT_DOUBLE_EQ(spread->low, 0.12);
  EXPECT_DOUBLE_EQ(spread->high, 0.12252);
  EXPECT_NEAR(spread->percent, 2.1, 1e-9);
  EXPECT_EQ(spread_note(*spread, "times", "s"), "times span 2.1 % (0.120–0.123 s)");
  EXPECT_EQ(narrow_spread_note(times, "epoch times", "s"), "epoch times span 2.1 % (0.120–0.123 s)");
}

TEST(NarrowSpread, TenPercentAndMoreIsNotNarrow) {
  EXPECT_FALSE(narrow_spread(std::vector<double>{1.0, 1.1}));  // exactly 10 % above
  EXPECT_FALSE(narrow_spread(std::vector<double>{1.0, 2.0}));
  EXPECT_TRUE(narrow_spread(std::vector<double>{1.0, 1.09}));
  EXPECT_EQ(narrow_spread_note(std::vector<double>{0.121, 0.5}, "epoch times", "s"), "");
}

TEST(NarrowSpread, NeedsTwoPositiveValues) {
  EXPECT_FALSE(narrow_spread(std::vector<double>{}));
  EXPECT_FALSE(narrow_spread(std::vector<double>{3.0}));
  EXPECT_FALSE(narrow_spread(std::vector<double>{0.0, 0.001}));
  EXPECT_FALSE(narrow_spread(std::vector<double>{-1.0, -1.01}));
}

TEST(NarrowSpread, BoundsGetTheDigitsThatTellThemApart) {
  EXPECT_EQ(narrow_spread_note(std::vector<double>{1.0001, 1.0004}, "energies", "J"),
            "energies span < 0.1 % (1.0001–1.0004 J)");
  EXPECT_EQ(narrow_spread_note(std::vector<double>{1000, 1040}, "samples/s", ""), "samples/s span 4.0 % (1000–1040)");
  // Identical values: no difference to stretch, and the note says 0.
  EXPECT_EQ(narrow_spread_note(std::vector<double>{2.5, 2.5}, "times", "s"), "times span 0 % (2.50–2.50 s)");
}

}  // namespace
}  // namespace jetchar::analysis
