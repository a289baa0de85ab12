#include "experiments/models/vgg11.h"

#include <string>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

Vgg11Impl::Vgg11Impl(const Vgg11Options& options) {
  // Output channels of each conv; 0 marks a 2×2 max-pool (torchvision cfg "A").
  const std::int64_t layout[] = {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0};
  std::int64_t in_channels = 3;
  for (std::int64_t channels : layout) {
    if (channels == 0) {
      pool_after_.back() = true;
      continue;
    }
    const auto index = std::to_string(convs_.size());
    convs_.push_back(register_module("conv" + index,
                                     torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, channels, 3).padding(1))));
    if (options.batch_norm) norms_.push_back(register_module("bn" + index, torch::nn::BatchNorm2d(channels)));
    pool_after_.push_back(false);
    in_channels = channels;
  }
  fc1_ = register_module("fc1", torch::nn::Linear(512 * 7 * 7, 4096));
  fc2_ = register_module("fc2", torch::nn::Linear(4096, 4096));
  fc3_ = register_module("fc3", torch::nn::Linear(4096, options.num_classes));
  dropout_ = register_module("dropout", torch::nn::Dropout(options.dropout));
}

torch::Tensor Vgg11Impl::forward(torch::Tensor images) {
  auto x = images;
  for (std::size_t i = 0; i < convs_.size(); ++i) {
    x = counted(convs_[i], x);
    if (!norms_.empty()) x = norms_[i](x);
    x = torch::relu(x);
    if (pool_after_[i]) x = torch::max_pool2d(x, 2, 2);
  }
  x = torch::adaptive_avg_pool2d(x, {7, 7}).flatten(1);
  x = dropout_(torch::relu(counted(fc1_, x)));
  x = dropout_(torch::relu(counted(fc2_, x)));
  return counted(fc3_, x);
}

}  // namespace jetchar::experiments
