// Multiply-accumulate counting for conv and linear layers, the rule of the reference MAC table:
// conv = Cout·Hout·Wout·k²·Cin/groups, linear = in·out per row; norms, activations, pooling, bias
// adds and attention matmuls are not counted. LibTorch's C++ modules have no forward hooks, so
// the models call their conv/linear layers through counted(), which adds to the innermost active
// MacCountScope of the calling thread and costs a branch otherwise.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace jetchar::experiments {

// kShapesOnly: a counted layer returns zeros of its output's shape instead of computing it. The
// model's own forward code still runs (every other op, on those zeros), so the count is that of the
// code, without the arithmetic that is most of the time: computing BERT-large at 128 tokens took
// 34 s on 2 cores, for a number its layer shapes determine.
enum class MacCounting { kCompute, kShapesOnly };

class MacCountScope {
 public:
  explicit MacCountScope(MacCounting counting = MacCounting::kCompute);
  ~MacCountScope();
  MacCountScope(const MacCountScope&) = delete;
  MacCountScope& operator=(const MacCountScope&) = delete;

  std::int64_t macs() const { return macs_; }
  /// Counted (conv/linear) layers and the elements of their outputs: the simulated board's time
  /// model takes kernels and activation traffic from them (experiments/models/model_work.h).
  std::int64_t layers() const { return layers_; }
  std::int64_t output_elements() const { return output_elements_; }
  void add(std::int64_t macs) { macs_ += macs; }
  void add_layer(std::int64_t macs, std::int64_t output_elements) {
    macs_ += macs;
    ++layers_;
    output_elements_ += output_elements;
  }
  bool shapes_only() const { return counting_ == MacCounting::kShapesOnly; }

 private:
  MacCounting counting_;
  std::int64_t macs_ = 0;
  std::int64_t layers_ = 0;
  std::int64_t output_elements_ = 0;
  MacCountScope* outer_;
};

torch::Tensor counted(torch::nn::Conv2d& conv, const torch::Tensor& input);
torch::Tensor counted(torch::nn::Linear& linear, const torch::Tensor& input);
/// A linear map whose weight [out, in] belongs to another module (a masked-LM decoder tied to the
/// word embeddings), counted as a Linear layer of that shape.
torch::Tensor counted_linear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace jetchar::experiments
