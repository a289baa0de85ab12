// Dynamic loss scaling for AMP fp16 training, as torch.cuda.amp.GradScaler does it (LibTorch 1.13
// has no C++ GradScaler): multiply the loss by S before backward, divide the gradients by S before
// the optimizer step, skip the step when a gradient is inf/NaN and halve S; double S after
// `growth_interval` clean steps. Written with plain tensor ops, so it runs (and is tested) on any device.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace jetchar::experiments {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  torch::Tensor scale(const torch::Tensor& loss) const { return loss * scale_; }
  /// Divides every defined gradient of `parameters` by the scale; false when any is inf/NaN.
  bool unscale(const std::vector<torch::Tensor>& parameters) const;
  /// Backs off after a non-finite step, grows after `growth_interval` finite ones in a row.
  void update(bool finite);

  double scale_value() const { return scale_; }
  std::int64_t skipped_steps() const { return skipped_steps_; }

 private:
  GradScalerOptions options_;
  double scale_;
  std::int64_t finite_in_a_row_ = 0;
  std::int64_t skipped_steps_ = 0;
};

}  // namespace jetchar::experiments
