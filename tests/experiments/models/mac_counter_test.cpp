#include "experiments/models/mac_counter.h"

#include <gtest/gtest.h>

#include <vector>

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

// Shapes only: the same count and the same output shape as computing, for the conv paddings
// LibTorch has (explicit, 'valid', 'same') with strides, dilation and groups, and batched inputs
// of any rank for linear layers; the output is zeros.
TEST(MacCounterTest, ShapesOnlyCountsAsComputingDoes) {
  std::vector<torch::nn::Conv2d> convs = {
      torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 8, 3).padding(1).groups(2)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 6, {3, 5}).stride({2, 3}).padding({2, 1}).dilation({2, 1})),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 4, 7).stride(2).padding(3).groups(4)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 5, 3).padding(torch::kValid)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(4, 5, 4).padding(torch::kSame).dilation(2)),
  };
  const auto image = torch::randn({2, 4, 17, 23});
  for (std::size_t i = 0; i < convs.size(); ++i) {
    MacCountScope computing;
    const auto computed = counted(convs[i], image);
    MacCountScope shapes(MacCounting::kShapesOnly);
    const auto zeros = counted(convs[i], image);
    EXPECT_EQ(zeros.sizes(), computed.sizes()) << "conv " << i;
    EXPECT_EQ(shapes.macs(), computing.macs()) << "conv " << i;
    EXPECT_EQ(zeros.count_nonzero().item<std::int64_t>(), 0) << "conv " << i;
  }
  torch::nn::Linear linear(10, 3);
  const auto tokens = torch::randn({2, 7, 10});
  MacCountScope computing;
  const auto computed = counted(linear, tokens);
  MacCountScope shapes(MacCounting::kShapesOnly);
  EXPECT_EQ(counted(linear, tokens).sizes(), computed.sizes());
  EXPECT_EQ(shapes.macs(), 2 * 7 * 3 * 10);
  EXPECT_EQ(shapes.macs(), computing.macs());
}

}  // namespace
}  // namespace jetchar::experiments
