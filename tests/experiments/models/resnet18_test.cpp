#include "experiments/models/resnet18.h"

#include <gtest/gtest.h>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {
namespace {

std::int64_t macs(ResNet18& model, std::vector<std::int64_t> shape) {
  torch::NoGradGuard no_grad;
  model->eval();
  MacCountScope scope;
  model(torch::zeros(shape));
  return scope.macs();
}

TEST(ResNet18Test, TorchvisionLayoutParameterCount) {
  ResNet18 model;
  EXPECT_EQ(parameter_count(*model), 11'689'512);
  ResNet18 ten(ResNet18Options{.num_classes = 10});
  EXPECT_EQ(parameter_count(*ten), 11'181'642);
}

TEST(ResNet18Test, CifarVariantParameterCountWithEitherNorm) {
  ResNet18 group(ResNet18Options{ResNetStem::kCifar, NormKind::kGroupNorm, 10});
  ResNet18 batch(ResNet18Options{ResNetStem::kCifar, NormKind::kBatchNorm, 10});
  EXPECT_EQ(parameter_count(*group), 11'173'962);
  EXPECT_EQ(parameter_count(*batch), 11'173'962);
}

TEST(ResNet18Test, MacsMatchTheReferenceTable) {
  ResNet18 imagenet;
  EXPECT_NEAR(macs(imagenet, {1, 3, 224, 224}) / 1e9, 1.814, 0.001);
  ResNet18 cifar(ResNet18Options{ResNetStem::kCifar, NormKind::kGroupNorm, 10});
  EXPECT_NEAR(macs(cifar, {1, 3, 32, 32}) / 1e9, 0.555, 0.001);
}

TEST(ResNet18Test, CifarForwardGivesClassLogits) {
  ResNet18 model(ResNet18Options{ResNetStem::kCifar, NormKind::kGroupNorm, 10});
  EXPECT_EQ(model(torch::randn({2, 3, 32, 32})).sizes(), (std::vector<std::int64_t>{2, 10}));
}

}  // namespace
}  // namespace jetchar::experiments
