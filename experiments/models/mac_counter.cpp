#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

namespace {
thread_local MacCountScope* active_scope = nullptr;
}  // namespace

MacCountScope::MacCountScope() : outer_(active_scope) { active_scope = this; }

MacCountScope::~MacCountScope() { active_scope = outer_; }

torch::Tensor counted(torch::nn::Conv2d& conv, const torch::Tensor& input) {
  auto output = conv->forward(input);
  if (active_scope != nullptr) {
    const auto& options = conv->options;
    const auto& kernel = *options.kernel_size();
    const std::int64_t per_output = kernel[0] * kernel[1] * options.in_channels() / options.groups();
    active_scope->add(output.numel() * per_output);
  }
  return output;
}

torch::Tensor counted(torch::nn::Linear& linear, const torch::Tensor& input) {
  auto output = linear->forward(input);
  if (active_scope != nullptr) active_scope->add(output.numel() * linear->options.in_features());
  return output;
}

}  // namespace jetchar::experiments
