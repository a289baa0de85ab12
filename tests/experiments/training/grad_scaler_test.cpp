#include "experiments/training/grad_scaler.h"

#include <gtest/gtest.h>

#include <limits>

namespace jetchar::experiments {
namespace {

TEST(GradScalerTest, UnscalesFiniteGradients) {
  GradScaler scaler(GradScalerOptions{.init_scale = 8.0});
  auto w = torch::ones({3}, torch::requires_grad());
  scaler.scale((w * 2).sum()).backward();
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 16.0)));
  EXPECT_TRUE(scaler.unscale({w}));
  EXPECT_TRUE(torch::allclose(w.grad(), torch::full({3}, 2.0)));
}

TEST(GradScalerTest, BacksOffOnInfinityAndGrowsAfterTheInterval) {
  GradScaler scaler(GradScalerOptions{.init_scale = 8.0, .growth_interval = 2});
  auto w = torch::ones({2}, torch::requires_grad());
  w.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::infinity()});
  const bool finite = scaler.unscale({w});
  EXPECT_FALSE(finite);
  scaler.update(finite);
  EXPECT_DOUBLE_EQ(scaler.scale_value(), 4.0);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale_value(), 4.0);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale_value(), 8.0);
}

TEST(GradScalerTest, NanIsNotFiniteAndMissingGradientsAreSkipped) {
  GradScaler scaler;
  auto w = torch::ones({1}, torch::requires_grad());
  auto unused = torch::ones({1}, torch::requires_grad());
  w.mutable_grad() = torch::tensor({std::numeric_limits<float>::quiet_NaN()});
  EXPECT_FALSE(scaler.unscale({w, unused}));
  EXPECT_TRUE(scaler.unscale({unused}));
}

}  // namespace
}  // namespace jetchar::experiments
