#include "experiments/models/lenet5.h"

#include <gtest/gtest.h>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {
namespace {

TEST(LeNet5Test, HasTheReferenceParameterCount) {
  LeNet5 model;
  EXPECT_EQ(parameter_count(*model), 61'706);
}

TEST(LeNet5Test, MapsGreyImagesToClassLogits) {
  LeNet5 model;
  auto logits = model(torch::zeros({3, 1, 28, 28}));
  EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{3, 10}));
}

TEST(LeNet5Test, ThirtyTwoPixelColourInputWithoutPadding) {
  LeNet5 model(LeNet5Options{.in_channels = 3, .num_classes = 10, .first_padding = 0});
  EXPECT_EQ(model(torch::zeros({2, 3, 32, 32})).sizes(), (std::vector<std::int64_t>{2, 10}));
}

TEST(LeNet5Test, CountsTheReferenceMacs) {
  LeNet5 model;
  torch::NoGradGuard no_grad;
  MacCountScope scope;
  model(torch::zeros({1, 1, 28, 28}));
  // 117,600 + 240,000 conv + 58,920 linear (reference table: 0.4165 M).
  EXPECT_EQ(scope.macs(), 416'520);
}

}  // namespace
}  // namespace jetchar::experiments
