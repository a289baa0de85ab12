#include "experiments/training/grad_scaler.h"

namespace jetchar::experiments {

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(options.init_scale) {}

bool GradScaler::unscale(const std::vector<torch::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  const double inverse = 1.0 / scale_;
  torch::Tensor all_finite;
  for (const auto& parameter : parameters) {
    auto grad = parameter.grad();
    if (!grad.defined()) continue;
    grad.mul_(inverse);
    // One device-side flag, read once below, instead of a host sync per parameter.
    auto finite = torch::isfinite(grad).all();
    all_finite = all_finite.defined() ? all_finite.logical_and(finite) : finite;
  }
  return !all_finite.defined() || all_finite.item<bool>();
}

void GradScaler::update(bool finite) {
  if (!finite) {
    scale_ *= options_.backoff_factor;
    finite_in_a_row_ = 0;
    ++skipped_steps_;
    return;
  }
  if (++finite_in_a_row_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    finite_in_a_row_ = 0;
  }
}

}  // namespace jetchar::experiments
