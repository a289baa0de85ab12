#include "experiments/models/mobilenet_v3.h"

#include <algorithm>
#include <string>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

namespace {

using torch::nn::BatchNorm2d;
using torch::nn::BatchNorm2dOptions;
using torch::nn::Conv2d;
using torch::nn::Conv2dOptions;

// torchvision's _make_divisible: round to a multiple of 8, never more than 10 % below the input.
std::int64_t make_divisible(std::int64_t value, std::int64_t divisor = 8) {
  std::int64_t rounded = std::max(divisor, (value + divisor / 2) / divisor * divisor);
  if (rounded * 10 < value * 9) rounded += divisor;
  return rounded;
}

BatchNorm2d batch_norm(std::int64_t channels) {
  return BatchNorm2d(BatchNorm2dOptions(channels).eps(0.001).momentum(0.01));
}

torch::Tensor activate(const torch::Tensor& x, bool hardswish) {
  return hardswish ? torch::hardswish(x) : torch::relu(x);
}

// Columns: in, kernel, expanded, out, SE, hardswish, stride (torchvision _mobilenet_v3_conf).
const std::vector<InvertedResidualConfig> kLarge = {
    {16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},  {24, 3, 72, 24, false, false, 1},
    {24, 5, 72, 40, true, false, 2},   {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
    {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
    {80, 3, 184, 80, false, true, 1},  {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
    {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1}, {160, 5, 960, 160, true, true, 1},
};
const std::vector<InvertedResidualConfig> kSmall = {
    {16, 3, 16, 16, true, false, 2}, {16, 3, 72, 24, false, false, 2}, {24, 3, 88, 24, false, false, 1},
    {24, 5, 96, 40, true, true, 2},  {40, 5, 240, 40, true, true, 1},  {40, 5, 240, 40, true, true, 1},
    {40, 5, 120, 48, true, true, 1}, {48, 5, 144, 48, true, true, 1},  {48, 5, 288, 96, true, true, 2},
    {96, 5, 576, 96, true, true, 1}, {96, 5, 576, 96, true, true, 1},
};

}  // namespace

InvertedResidualImpl::InvertedResidualImpl(const InvertedResidualConfig& config) : config_(config) {
  if (config.expanded != config.in_channels) {
    expand_ = register_module("expand", Conv2d(Conv2dOptions(config.in_channels, config.expanded, 1).bias(false)));
    expand_bn_ = register_module("expand_bn", batch_norm(config.expanded));
  }
  depthwise_ = register_module("depthwise", Conv2d(Conv2dOptions(config.expanded, config.expanded, config.kernel)
                                                       .stride(config.stride)
                                                       .padding((config.kernel - 1) / 2)
                                                       .groups(config.expanded)
                                                       .bias(false)));
  depthwise_bn_ = register_module("depthwise_bn", batch_norm(config.expanded));
  if (config.squeeze_excite) {
    const std::int64_t squeeze = make_divisible(config.expanded / 4);
    se_fc1_ = register_module("se_fc1", Conv2d(Conv2dOptions(config.expanded, squeeze, 1)));
    se_fc2_ = register_module("se_fc2", Conv2d(Conv2dOptions(squeeze, config.expanded, 1)));
  }
  project_ = register_module("project", Conv2d(Conv2dOptions(config.expanded, config.out_channels, 1).bias(false)));
  project_bn_ = register_module("project_bn", batch_norm(config.out_channels));
}

torch::Tensor InvertedResidualImpl::forward(const torch::Tensor& x) {
  auto out = x;
  if (expand_) out = activate(expand_bn_(counted(expand_, out)), config_.hardswish);
  out = activate(depthwise_bn_(counted(depthwise_, out)), config_.hardswish);
  if (se_fc1_) {
    auto scale = torch::adaptive_avg_pool2d(out, {1, 1});
    scale = torch::hardsigmoid(counted(se_fc2_, torch::relu(counted(se_fc1_, scale))));
    out = out * scale;
  }
  out = project_bn_(counted(project_, out));
  if (config_.stride == 1 && config_.in_channels == config_.out_channels) out = out + x;
  return out;
}

MobileNetV3Impl::MobileNetV3Impl(const MobileNetV3Options& options) {
  const bool large = options.size == MobileNetV3Size::kLarge;
  const auto& configs = large ? kLarge : kSmall;
  const std::int64_t last_channel = large ? 1280 : 1024;

  stem_ = register_module("stem", Conv2d(Conv2dOptions(3, 16, 3).stride(2).padding(1).bias(false)));
  stem_bn_ = register_module("stem_bn", batch_norm(16));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    auto config = configs[i];
    config.in_channels = make_divisible(config.in_channels);
    config.expanded = make_divisible(config.expanded);
    config.out_channels = make_divisible(config.out_channels);
    blocks_.push_back(register_module("block" + std::to_string(i), InvertedResidual(config)));
  }
  const std::int64_t last_in = configs.back().out_channels;
  const std::int64_t last_out = 6 * last_in;
  last_conv_ = register_module("last_conv", Conv2d(Conv2dOptions(last_in, last_out, 1).bias(false)));
  last_bn_ = register_module("last_bn", batch_norm(last_out));
  classifier1_ = register_module("classifier1", torch::nn::Linear(last_out, last_channel));
  dropout_ = register_module("dropout", torch::nn::Dropout(options.dropout));
  classifier2_ = register_module("classifier2", torch::nn::Linear(last_channel, options.num_classes));
}

torch::Tensor MobileNetV3Impl::forward(torch::Tensor images) {
  auto x = torch::hardswish(stem_bn_(counted(stem_, images)));
  for (auto& block : blocks_) x = block(x);
  x = torch::hardswish(last_bn_(counted(last_conv_, x)));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  x = dropout_(torch::hardswish(counted(classifier1_, x)));
  return counted(classifier2_, x);
}

}  // namespace jetchar::experiments
