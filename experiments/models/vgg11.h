// VGG-11 (configuration "A") in the torchvision layout: eight 3×3 convs with bias, optional
// BatchNorm after each, adaptive 7×7 average pool, classifier 25088-4096-4096-classes with dropout.
// 132,863,336 parameters without BatchNorm, 132,868,840 with it (1000 classes).
#pragma once

#include <vector>

#include "experiments/models/network.h"

namespace jetchar::experiments {

struct Vgg11Options {
  bool batch_norm = false;
  std::int64_t num_classes = 1000;
  double dropout = 0.5;
};

class Vgg11Impl : public Network {
 public:
  explicit Vgg11Impl(const Vgg11Options& options = {});
  torch::Tensor forward(torch::Tensor images);
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override { return forward(batch.inputs); }

 private:
  std::vector<torch::nn::Conv2d> convs_;
  std::vector<torch::nn::BatchNorm2d> norms_;  // empty without BatchNorm
  std::vector<bool> pool_after_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr}, fc3_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(Vgg11);

}  // namespace jetchar::experiments
