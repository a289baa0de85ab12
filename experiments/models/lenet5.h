// LeNet-5 as the seed study codes it (modern form): conv 6@5×5 (padding 2 for 28×28 one-channel
// input) → ReLU → max-pool → conv 16@5×5 → ReLU → max-pool → FC 400-120-84-classes.
// 61,706 parameters at 1 channel and 10 classes.
#pragma once

#include "experiments/models/network.h"

namespace jetchar::experiments {

struct LeNet5Options {
  std::int64_t in_channels = 1;
  std::int64_t num_classes = 10;
  /// 2 for 28×28 input (MNIST family), 0 for 32×32 input.
  std::int64_t first_padding = 2;
};

class LeNet5Impl : public Network {
 public:
  explicit LeNet5Impl(const LeNet5Options& options = {});
  torch::Tensor forward(torch::Tensor images);
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override { return forward(batch.inputs); }

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr}, fc3_{nullptr};
};
TORCH_MODULE(LeNet5);

}  // namespace jetchar::experiments
