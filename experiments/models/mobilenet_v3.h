// MobileNetV3 Large and Small in the torchvision layout (BatchNorm eps 1e-3, momentum 0.01;
// squeeze-excitation with 1×1 convs; classifier Linear-Hardswish-Dropout-Linear):
// 5,483,032 / 2,542,856 parameters at 1000 classes.
#pragma once

#include <vector>

#include "experiments/models/network.h"

namespace jetchar::experiments {

enum class MobileNetV3Size { kLarge, kSmall };

struct MobileNetV3Options {
  MobileNetV3Size size = MobileNetV3Size::kLarge;
  std::int64_t num_classes = 1000;
  double dropout = 0.2;
};

/// One inverted-residual block: optional 1×1 expansion, depthwise k×k, optional SE, 1×1 projection.
struct InvertedResidualConfig {
  std::int64_t in_channels;
  std::int64_t kernel;
  std::int64_t expanded;
  std::int64_t out_channels;
  bool squeeze_excite;
  bool hardswish;  // ReLU otherwise
  std::int64_t stride;
};

class InvertedResidualImpl : public torch::nn::Module {
 public:
  explicit InvertedResidualImpl(const InvertedResidualConfig& config);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  InvertedResidualConfig config_;
  torch::nn::Conv2d expand_{nullptr}, depthwise_{nullptr}, se_fc1_{nullptr}, se_fc2_{nullptr}, project_{nullptr};
  torch::nn::BatchNorm2d expand_bn_{nullptr}, depthwise_bn_{nullptr}, project_bn_{nullptr};
};
TORCH_MODULE(InvertedResidual);

class MobileNetV3Impl : public Network {
 public:
  explicit MobileNetV3Impl(const MobileNetV3Options& options = {});
  torch::Tensor forward(torch::Tensor images);
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override { return forward(batch.inputs); }

 private:
  torch::nn::Conv2d stem_{nullptr}, last_conv_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr}, last_bn_{nullptr};
  std::vector<InvertedResidual> blocks_;
  torch::nn::Linear classifier1_{nullptr}, classifier2_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(MobileNetV3);

}  // namespace jetchar::experiments
