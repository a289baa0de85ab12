#include "experiments/models/mobilenet_v3.h"

#include <gtest/gtest.h>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {
namespace {

TEST(MobileNetV3Test, LargeParameterCount) {
  MobileNetV3 model(MobileNetV3Options{.size = MobileNetV3Size::kLarge});
  EXPECT_EQ(parameter_count(*model), 5'483'032);
  MobileNetV3 gld(MobileNetV3Options{.size = MobileNetV3Size::kLarge, .num_classes = 203});
  EXPECT_EQ(parameter_count(*gld), 4'462'075);
}

TEST(MobileNetV3Test, SmallParameterCount) {
  MobileNetV3 model(MobileNetV3Options{.size = MobileNetV3Size::kSmall});
  EXPECT_EQ(parameter_count(*model), 2'542'856);
}

TEST(MobileNetV3Test, MacsMatchTheReferenceTable) {
  torch::NoGradGuard no_grad;
  for (auto [size, expected_m] :
       {std::pair{MobileNetV3Size::kLarge, 216.6}, std::pair{MobileNetV3Size::kSmall, 56.5}}) {
    MobileNetV3 model(MobileNetV3Options{.size = size});
    model->eval();
    MacCountScope scope;
    auto logits = model(torch::zeros({1, 3, 224, 224}));
    EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{1, 1000}));
    EXPECT_NEAR(scope.macs() / 1e6, expected_m, 0.1);
  }
}

}  // namespace
}  // namespace jetchar::experiments
