#include "experiments/models/vgg11.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

TEST(Vgg11Test, ParameterCountWithoutBatchNorm) {
  Vgg11 model(Vgg11Options{.batch_norm = false});
  EXPECT_EQ(parameter_count(*model), 132'863'336);
}

TEST(Vgg11Test, ParameterCountWithBatchNorm) {
  Vgg11 model(Vgg11Options{.batch_norm = true});
  EXPECT_EQ(parameter_count(*model), 132'868'840);
  Vgg11 ten(Vgg11Options{.batch_norm = true, .num_classes = 10});
  EXPECT_EQ(parameter_count(*ten), 128'812'810);
}

TEST(Vgg11Test, SmallInputStillReachesTheClassifier) {
  // The adaptive 7×7 pool lets any input of at least 32×32 through.
  Vgg11 model(Vgg11Options{.batch_norm = true, .num_classes = 10});
  model->eval();
  torch::NoGradGuard no_grad;
  EXPECT_EQ(model(torch::zeros({1, 3, 32, 32})).sizes(), (std::vector<std::int64_t>{1, 10}));
}

}  // namespace
}  // namespace jetchar::experiments
