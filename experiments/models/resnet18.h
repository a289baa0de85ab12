// ResNet-18 with basic blocks. Two stems: the torchvision layout (7×7/2 conv, max-pool; 11,689,512
// parameters at 1000 classes) and the CIFAR variant of the seed study (3×3/1 conv, no max-pool;
// 11,173,962 at 10 classes). The seed code normalises with GroupNorm(C, C), i.e. instance norm;
// BatchNorm is the torchvision choice. Both have the same parameter count.
#pragma once

#include "experiments/models/network.h"

namespace jetchar::experiments {

enum class ResNetStem { kImageNet, kCifar };
enum class NormKind { kBatchNorm, kGroupNorm };

struct ResNet18Options {
  ResNetStem stem = ResNetStem::kImageNet;
  NormKind norm = NormKind::kBatchNorm;
  std::int64_t num_classes = 1000;
};

/// BatchNorm2d or GroupNorm(C, C) behind one forward().
class Norm2dImpl : public torch::nn::Module {
 public:
  Norm2dImpl(NormKind kind, std::int64_t channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::BatchNorm2d batch_{nullptr};
  torch::nn::GroupNorm group_{nullptr};
};
TORCH_MODULE(Norm2d);

class BasicBlockImpl : public torch::nn::Module {
 public:
  BasicBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride, NormKind norm);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, downsample_conv_{nullptr};
  Norm2d norm1_{nullptr}, norm2_{nullptr}, downsample_norm_{nullptr};
};
TORCH_MODULE(BasicBlock);

class ResNet18Impl : public Network {
 public:
  explicit ResNet18Impl(const ResNet18Options& options = {});
  torch::Tensor forward(torch::Tensor images);
  Task task() const override { return Task::kImageClassification; }
  torch::Tensor forward_batch(const loaders::Batch& batch) override { return forward(batch.inputs); }

 private:
  ResNet18Options options_;
  torch::nn::Conv2d stem_conv_{nullptr};
  Norm2d stem_norm_{nullptr};
  std::vector<BasicBlock> blocks_;
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet18);

}  // namespace jetchar::experiments
