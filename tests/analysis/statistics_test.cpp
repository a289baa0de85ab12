#include "analysis/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jetchar::analysis {
namespace {

// Hand-computed: mean 40/8 = 5; squared deviations sum to 32, so the sample stddev is sqrt(32/7);
// sorted 2 4 4 4 5 5 7 9 → median (4+5)/2; olympic mean drops 2 and 9 → 29/6.
const std::vector<double> kSample = {2, 4, 4, 4, 5, 5, 7, 9};

TEST(Statistics, HandComputedValues) {
  EXPECT_DOUBLE_EQ(mean(kSample), 5.0);
  EXPECT_DOUBLE_EQ(median(kSample), 4.5);
  ASSERT_TRUE(stddev(kSample));
  EXPECT_DOUBLE_EQ(*stddev(kSample), std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(*coefficient_of_variation(kSample), std::sqrt(32.0 / 7.0) / 5.0);
  EXPECT_DOUBLE_EQ(*olympic_mean(kSample), 29.0 / 6.0);
}

TEST(Statistics, OddMedianAndQuantiles) {
  std::vector<double> v = {9, 1, 5};
  EXPECT_DOUBLE_EQ(median(v), 5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 9);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 3);  // type 7: position 0.5 between 1 and 5
  EXPECT_THROW(quantile(v, 1.5), std::invalid_argument);
}

TEST(Statistics, SmallSamplesGiveNulloptNotZero) {
  std::vector<double> one = {3.0};
  EXPECT_FALSE(stddev(one));
  EXPECT_FALSE(coefficient_of_variation(one));
  EXPECT_FALSE(olympic_mean(std::vector<double>{1.0, 2.0}));
  EXPECT_DOUBLE_EQ(*olympic_mean(std::vector<double>{1.0, 2.0, 10.0}), 2.0);
  std::vector<double> zero_mean = {-1, 1};
  EXPECT_FALSE(coefficient_of_variation(zero_mean));
  EXPECT_THROW(mean(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
}

TEST(Statistics, OlympicMeanDropsOnlyOneOfRepeatedExtremes) {
  std::vector<double> v = {1, 1, 3, 5, 5};
  EXPECT_DOUBLE_EQ(*olympic_mean(v), (1 + 3 + 5) / 3.0);
}

TEST(Statistics, SummaryCollectsEverything) {
  Summary s = summarize(kSample);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(*s.olympic_mean, 29.0 / 6.0);
}

}  // namespace
}  // namespace jetchar::analysis
