#include "results/epoch_medians.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace jetchar::results {
namespace {

TEST(Median, OfAnOddCountIsTheMiddleValue) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({7.5}), 7.5);
}

TEST(Median, OfAnEvenCountIsTheMeanOfTheTwoMiddleValues) {
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_EQ(median({1.0, 2.0}), 1.5);
}

TEST(Median, OfNothingIsNoValue) { EXPECT_FALSE(median({}).has_value()); }

TEST(Median, IgnoresOutliersAndDuplicates) { EXPECT_EQ(median({1.0, 1.0, 1.0, 1000.0, -1000.0}), 1.0); }

proto::RunResult run_with_epochs(const std::vector<double>& e2e_s) {
  proto::RunResult result;
  for (std::size_t i = 0; i < e2e_s.size(); ++i) {
    auto* epoch = result.add_epochs();
    epoch->set_epoch(static_cast<int>(i));
    epoch->set_e2e_s(e2e_s[i]);
    epoch->set_stall_s(e2e_s[i] / 10);
    epoch->set_compute_s(e2e_s[i] / 2);
  }
  return result;
}

TEST(WarmEpochMedians, LeaveOutTheColdEpoch) {
  const EpochMedians medians = warm_epoch_medians(run_with_epochs({100.0, 4.0, 2.0, 3.0, 5.0}));
  EXPECT_EQ(medians.epochs, 4U);
  EXPECT_FALSE(medians.cold_only);
  EXPECT_EQ(medians.e2e_s, 3.5);
  EXPECT_EQ(medians.compute_s, 1.75);
  EXPECT_FALSE(medians.energy_j.has_value());
}

TEST(WarmEpochMedians, OfARunWithEpochZeroOnlyAreOfTheColdEpoch) {
  const EpochMedians medians = warm_epoch_medians(run_with_epochs({9.0}));
  EXPECT_EQ(medians.epochs, 1U);
  EXPECT_TRUE(medians.cold_only);
  EXPECT_EQ(medians.e2e_s, 9.0);
}

}  // namespace
}  // namespace jetchar::results
