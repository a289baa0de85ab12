#include "experiments/training/linear_schedule.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace jetchar::experiments {
namespace {

TEST(LinearScheduleTest, WarmsUpThenDecaysToZeroAsHfDoes) {
  // 10 steps, ratio 0.25: ceil(2.5) = 3 warm-up steps; factors 0, 1/3, 2/3, then (10 - s) / 7.
  const auto schedule = LinearSchedule::from_proportion(0.25, 10);
  EXPECT_EQ(schedule.warmup_steps, 3);
  EXPECT_DOUBLE_EQ(schedule.factor(0), 0.0);
  EXPECT_DOUBLE_EQ(schedule.factor(1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(schedule.factor(2), 2.0 / 3);
  EXPECT_DOUBLE_EQ(schedule.factor(3), 1.0);
  EXPECT_DOUBLE_EQ(schedule.factor(4), 6.0 / 7);
  EXPECT_DOUBLE_EQ(schedule.factor(9), 1.0 / 7);
  EXPECT_DOUBLE_EQ(schedule.factor(10), 0.0);
  EXPECT_DOUBLE_EQ(schedule.factor(12), 0.0);
}

TEST(LinearScheduleTest, WithoutWarmUpTheFirstStepUsesTheFullRate) {
  const auto schedule = LinearSchedule::from_proportion(0.0, 4);
  EXPECT_EQ(schedule.warmup_steps, 0);
  EXPECT_DOUBLE_EQ(schedule.factor(0), 1.0);
  EXPECT_DOUBLE_EQ(schedule.factor(2), 0.5);
}

TEST(LinearScheduleTest, RefusesProportionsOutsideZeroToOne) {
  EXPECT_THROW(LinearSchedule::from_proportion(1.5, 10), std::invalid_argument);
  EXPECT_THROW(LinearSchedule::from_proportion(-0.1, 10), std::invalid_argument);
  EXPECT_THROW(LinearSchedule::from_proportion(0.1, 0), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
