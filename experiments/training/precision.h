// Numeric precision of a training or inference run: fp32; tf32 (fp32 storage, TF32 tensor-core
// matmuls and convolutions on Ampere-class GPUs such as Orin; no effect on the CPU); AMP fp16
// (CUDA autocast to half with gradient scaling); bf16 (autocast to bfloat16, CPU or CUDA).
#pragma once

#include <torch/torch.h>

#include <string>
#include <string_view>

namespace jetchar::experiments {

enum class Precision { kFp32, kTf32, kAmpFp16, kBf16 };

/// "fp32", "tf32", "amp-fp16" (alias "fp16"), "bf16". Throws std::invalid_argument naming the valid ones.
Precision parse_precision(std::string_view text);
std::string_view precision_name(Precision precision);
/// Throws std::invalid_argument when the precision cannot run on `device` (AMP fp16 needs CUDA).
void check_precision(Precision precision, const torch::Device& device);
/// What the run actually does, e.g. "tf32 (no effect on cpu: fp32)".
std::string resolved_precision(Precision precision, const torch::Device& device);

/// A failed run's error as recorded: the first line of `what` (c10 errors append a C++ backtrace),
/// with what it means when oneDNN refuses a bfloat16 layer on the CPU (its own words name no
/// precision).
std::string run_error_text(std::string_view what, Precision precision, const torch::Device& device);

/// Process-wide TF32 switches for cuBLAS/cuDNN, restored on destruction.
class Tf32Scope {
 public:
  explicit Tf32Scope(bool enable);
  ~Tf32Scope();
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool cublas_, cudnn_;
};

/// Autocast for the forward pass and the loss (not the backward pass, as PyTorch recommends),
/// for AMP fp16 and bf16; does nothing for fp32/tf32. Restores the previous autocast state.
class AutocastScope {
 public:
  AutocastScope(Precision precision, const torch::Device& device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  bool cuda_ = false;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace jetchar::experiments
