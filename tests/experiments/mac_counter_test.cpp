#include "experiments/models/mac_counter.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(MacCounterTest, CountsConvAndLinearByTheReferenceRule) {
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(4, 8, 3).padding(1).groups(2));
  torch::nn::Linear linear(10, 3);
  MacCountScope scope;
  counted(conv, torch::zeros({1, 4, 5, 5}));
  EXPECT_EQ(scope.macs(), 8 * 5 * 5 * 9 * 4 / 2);
  counted(linear, torch::zeros({2, 10}));
  EXPECT_EQ(scope.macs(), 8 * 5 * 5 * 9 * 2 + 2 * 30);
}

TEST(MacCounterTest, NestedScopesAreIndependentAndNoScopeCountsNothing) {
  torch::nn::Linear linear(10, 3);
  counted(linear, torch::zeros({1, 10}));  // no scope: nothing to add to, no crash
  MacCountScope outer;
  {
    MacCountScope inner;
    counted(linear, torch::zeros({1, 10}));
    EXPECT_EQ(inner.macs(), 30);
  }
  EXPECT_EQ(outer.macs(), 0);
  counted(linear, torch::zeros({1, 10}));
  EXPECT_EQ(outer.macs(), 30);
}

}  // namespace
}  // namespace jetchar::experiments
