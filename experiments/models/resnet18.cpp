#include "experiments/models/resnet18.h"

#include <string>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

using torch::nn::Conv2d;
using torch::nn::Conv2dOptions;

Norm2dImpl::Norm2dImpl(NormKind kind, std::int64_t channels) {
  if (kind == NormKind::kBatchNorm) {
    batch_ = register_module("bn", torch::nn::BatchNorm2d(channels));
  } else {
    group_ = register_module("gn", torch::nn::GroupNorm(torch::nn::GroupNormOptions(channels, channels)));
  }
}

torch::Tensor Norm2dImpl::forward(const torch::Tensor& x) { return batch_ ? batch_->forward(x) : group_->forward(x); }

BasicBlockImpl::BasicBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride,
                               NormKind norm) {
  conv1_ = register_module("conv1",
                           Conv2d(Conv2dOptions(in_channels, out_channels, 3).stride(stride).padding(1).bias(false)));
  norm1_ = register_module("norm1", Norm2d(norm, out_channels));
  conv2_ = register_module("conv2", Conv2d(Conv2dOptions(out_channels, out_channels, 3).padding(1).bias(false)));
  norm2_ = register_module("norm2", Norm2d(norm, out_channels));
  if (stride != 1 || in_channels != out_channels) {
    downsample_conv_ = register_module("downsample_conv",
                                       Conv2d(Conv2dOptions(in_channels, out_channels, 1).stride(stride).bias(false)));
    downsample_norm_ = register_module("downsample_norm", Norm2d(norm, out_channels));
  }
}

torch::Tensor BasicBlockImpl::forward(const torch::Tensor& x) {
  auto out = torch::relu(norm1_(counted(conv1_, x)));
  out = norm2_(counted(conv2_, out));
  auto identity = downsample_conv_ ? downsample_norm_(counted(downsample_conv_, x)) : x;
  return torch::relu(out + identity);
}

ResNet18Impl::ResNet18Impl(const ResNet18Options& options) : options_(options) {
  if (options.stem == ResNetStem::kImageNet) {
    stem_conv_ = register_module("conv1", Conv2d(Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)));
  } else {
    stem_conv_ = register_module("conv1", Conv2d(Conv2dOptions(3, 64, 3).stride(1).padding(1).bias(false)));
  }
  stem_norm_ = register_module("norm1", Norm2d(options.norm, 64));
  const std::int64_t widths[] = {64, 128, 256, 512};
  std::int64_t in_channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < 2; ++block) {
      const std::int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      auto name = "layer" + std::to_string(stage + 1) + "_" + std::to_string(block);
      blocks_.push_back(register_module(name, BasicBlock(in_channels, widths[stage], stride, options.norm)));
      in_channels = widths[stage];
    }
  }
  fc_ = register_module("fc", torch::nn::Linear(512, options.num_classes));
}

torch::Tensor ResNet18Impl::forward(torch::Tensor images) {
  auto x = torch::relu(stem_norm_(counted(stem_conv_, images)));
  if (options_.stem == ResNetStem::kImageNet) x = torch::max_pool2d(x, 3, 2, 1);
  for (auto& block : blocks_) x = block(x);
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return counted(fc_, x);
}

}  // namespace jetchar::experiments
