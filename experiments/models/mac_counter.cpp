#include "experiments/models/mac_counter.h"

#include <torch/version.h>

#include <array>
#include <optional>
#include <variant>
#include <vector>

namespace jetchar::experiments {

namespace {

// A convolution's padding is a c10::variant: c10's own class up to LibTorch 2.0, std::variant after.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
namespace variant = std;
#else
namespace variant = c10;
#endif

thread_local MacCountScope* active_scope = nullptr;

// The output shape of `conv` on a batched (N, C, H, W) input; nullopt for any other rank.
std::optional<std::vector<std::int64_t>> conv_output_shape(const torch::nn::detail::ConvNdOptions<2>& options,
                                                           const torch::Tensor& input) {
  if (input.dim() != 4) return std::nullopt;
  const auto& kernel = *options.kernel_size();
  const auto& stride = *options.stride();
  const auto& dilation = *options.dilation();
  std::vector<std::int64_t> shape = {input.size(0), options.out_channels(), input.size(2), input.size(3)};
  if (variant::holds_alternative<torch::enumtype::kSame>(options.padding()))
    return shape;  // LibTorch allows it with stride 1 only
  std::array<std::int64_t, 2> padding = {0, 0};
  if (const auto* explicit_padding = variant::get_if<torch::ExpandingArray<2>>(&options.padding())) {
    padding = {(**explicit_padding)[0], (**explicit_padding)[1]};
  }
  for (std::size_t i = 0; i < 2; ++i) {
    shape[2 + i] = (input.size(static_cast<std::int64_t>(2 + i)) + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) /
                       stride[i] +
                   1;
  }
  return shape;
}

}  // namespace

MacCountScope::MacCountScope(MacCounting counting) : counting_(counting), outer_(active_scope) { active_scope = this; }

MacCountScope::~MacCountScope() { active_scope = outer_; }

torch::Tensor counted(torch::nn::Conv2d& conv, const torch::Tensor& input) {
  if (active_scope == nullptr) return conv->forward(input);
  const auto& options = conv->options;
  const auto shape = active_scope->shapes_only() ? conv_output_shape(options, input) : std::nullopt;
  const auto output = shape ? torch::zeros(*shape, input.options()) : conv->forward(input);
  const auto& kernel = *options.kernel_size();
  const std::int64_t per_output = kernel[0] * kernel[1] * options.in_channels() / options.groups();
  active_scope->add_layer(output.numel() * per_output, output.numel());
  return output;
}

torch::Tensor counted(torch::nn::Linear& linear, const torch::Tensor& input) {
  if (active_scope == nullptr) return linear->forward(input);
  torch::Tensor output;
  if (active_scope->shapes_only()) {
    auto shape = input.sizes().vec();
    shape.back() = linear->options.out_features();
    output = torch::zeros(shape, input.options());
  } else {
    output = linear->forward(input);
  }
  active_scope->add_layer(output.numel() * linear->options.in_features(), output.numel());
  return output;
}

torch::Tensor counted_linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (active_scope == nullptr) return torch::nn::functional::linear(input, weight, bias);
  torch::Tensor output;
  if (active_scope->shapes_only()) {
    auto shape = input.sizes().vec();
    shape.back() = weight.size(0);
    output = torch::zeros(shape, input.options());
  } else {
    output = torch::nn::functional::linear(input, weight, bias);
  }
  active_scope->add_layer(output.numel() * weight.size(1), output.numel());
  return output;
}

}  // namespace jetchar::experiments
