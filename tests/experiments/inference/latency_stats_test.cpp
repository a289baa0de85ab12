#include "experiments/inference/latency_stats.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace jetchar::experiments {
namespace {

TEST(LatencyStatsTest, NearestRankOnOneToHundred) {
  std::vector<std::int64_t> values(100);
  std::iota(values.begin(), values.end(), 1);
  std::reverse(values.begin(), values.end());  // any order
  auto stats = latency_stats(values);
  EXPECT_EQ(stats.count, 100);
  EXPECT_DOUBLE_EQ(stats.avg_ns, 50.5);
  EXPECT_EQ(stats.min_ns, 1);
  EXPECT_EQ(stats.p50_ns, 50);
  EXPECT_EQ(stats.p90_ns, 90);
  EXPECT_EQ(stats.p95_ns, 95);
  EXPECT_EQ(stats.p99_ns, 99);
  EXPECT_EQ(stats.max_ns, 100);
}

TEST(LatencyStatsTest, NearestRankRoundsTheRankUp) {
  const std::vector<std::int64_t> sorted{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_EQ(nearest_rank(sorted, 90), 90);   // rank 9 exactly, not 10 through float error
  EXPECT_EQ(nearest_rank(sorted, 91), 100);  // rank ceil(9.1) = 10
  EXPECT_EQ(nearest_rank(sorted, 50), 50);
  EXPECT_EQ(nearest_rank(sorted, 5), 10);
  const std::vector<std::int64_t> one{7};
  EXPECT_EQ(latency_stats(one).p99_ns, 7);
}

TEST(LatencyStatsTest, EmptyAndOutOfRangeAreErrors) {
  EXPECT_THROW(latency_stats({}), std::invalid_argument);
  const std::vector<std::int64_t> sorted{1};
  EXPECT_THROW(nearest_rank(sorted, 0), std::invalid_argument);
  EXPECT_THROW(nearest_rank(sorted, 101), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
