#include "analysis/bootstrap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

double mean_of(std::span<const double> v) { return mean(v); }

TEST(Bootstrap, ConstantSampleHasDegenerateInterval) {
  std::vector<double> v(10, 4.25);
  auto ci = bootstrap_ci(v, mean_of);
  EXPECT_DOUBLE_EQ(ci.low, 4.25);
  EXPECT_DOUBLE_EQ(ci.high, 4.25);
}

TEST(Bootstrap, TwoPointSampleCoversBothExtremes) {
  // Resampled means of {0, 1} are 0, 0.5, 1 with probability 1/4, 1/2, 1/4: the 2.5 % and 97.5 %
  // quantiles of 2000 resamples are 0 and 1.
  std::vector<double> v = {0, 1};
  auto ci = bootstrap_ci(v, mean_of);
  EXPECT_DOUBLE_EQ(ci.low, 0);
  EXPECT_DOUBLE_EQ(ci.high, 1);
  // A 40 % interval lies inside the middle mass: both ends 0.5.
  auto narrow = bootstrap_ci(v, mean_of, {.level = 0.4, .resamples = 2000, .seed = 3});
  EXPECT_DOUBLE_EQ(narrow.low, 0.5);
  EXPECT_DOUBLE_EQ(narrow.high, 0.5);
}

TEST(Bootstrap, SeededAndReproducible) {
  std::vector<double> v = {1, 2, 3, 4, 10, 11};
  auto a = bootstrap_ci(v, mean_of, {.level = 0.9, .resamples = 500, .seed = 7});
  auto b = bootstrap_ci(v, mean_of, {.level = 0.9, .resamples = 500, .seed = 7});
  auto c = bootstrap_ci(v, mean_of, {.level = 0.9, .resamples = 500, .seed = 8});
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(a.low != c.low || a.high != c.high);
}

TEST(Bootstrap, MeanIntervalMatchesNormalTheory) {
  // 400 draws of N(10, 2): the 95 % interval of the mean is about ±1.96·2/20 = ±0.196.
  std::mt19937_64 rng(42);
  std::normal_distribution<double> d(10, 2);
  std::vector<double> v(400);
  for (double& x : v) x = d(rng);
  auto ci = bootstrap_ci(v, mean_of, {.level = 0.95, .resamples = 2000, .seed = 1});
  double m = mean(v);
  EXPECT_NEAR(ci.high - ci.low, 2 * 0.196, 0.05);
  EXPECT_LT(ci.low, m);
  EXPECT_GT(ci.high, m);
}

TEST(Bootstrap, RejectsBadArguments) {
  std::vector<double> v = {1, 2};
  EXPECT_THROW(bootstrap_ci({}, mean_of), std::invalid_argument);
  EXPECT_THROW(bootstrap_ci(v, mean_of, {.level = 1.0}), std::invalid_argument);
  EXPECT_THROW(bootstrap_ci(v, mean_of, {.level = 0.9, .resamples = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::analysis
