// Multiply-accumulate counting for conv and linear layers, the rule of the reference MAC table:
// conv = Cout·Hout·Wout·k²·Cin/groups, linear = in·out per row; norms, activations, pooling, bias
// adds and attention matmuls are not counted. LibTorch's C++ modules have no forward hooks, so
// the models call their conv/linear layers through counted(), which adds to the innermost active
// MacCountScope of the calling thread and costs a branch otherwise.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace jetchar::experiments {

class MacCountScope {
 public:
  MacCountScope();
  ~MacCountScope();
  MacCountScope(const MacCountScope&) = delete;
  MacCountScope& operator=(const MacCountScope&) = delete;

  std::int64_t macs() const { return macs_; }
  void add(std::int64_t macs) { macs_ += macs; }

 private:
  std::int64_t macs_ = 0;
  MacCountScope* outer_;
};

torch::Tensor counted(torch::nn::Conv2d& conv, const torch::Tensor& input);
torch::Tensor counted(torch::nn::Linear& linear, const torch::Tensor& input);

}  // namespace jetchar::experiments
