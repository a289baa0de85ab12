#include "experiments/training/precision.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>

#include <stdexcept>

namespace jetchar::experiments {

Precision parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "tf32") return Precision::kTf32;
  if (text == "amp-fp16" || text == "fp16") return Precision::kAmpFp16;
  if (text == "bf16") return Precision::kBf16;
  throw std::invalid_argument(fmt::format("precision '{}' is not valid; valid: fp32, tf32, amp-fp16, bf16", text));
}

std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kAmpFp16: return "amp-fp16";
    case Precision::kBf16: return "bf16";
  }
  return "unknown";
}

void check_precision(Precision precision, const torch::Device& device) {
  if (precision == Precision::kAmpFp16 && !device.is_cuda()) {
    throw std::invalid_argument(fmt::format(
        "precision amp-fp16 needs a CUDA device, not {}; valid on {}: fp32, tf32, bf16", device.str(), device.str()));
  }
}

std::string resolved_precision(Precision precision, const torch::Device& device) {
  if (precision == Precision::kTf32 && !device.is_cuda()) {
    return fmt::format("tf32 (no effect on {}: fp32)", device.str());
  }
  if (precision == Precision::kAmpFp16) return "amp-fp16 (autocast float16, dynamic gradient scaling)";
  if (precision == Precision::kBf16) return "bf16 (autocast bfloat16)";
  return std::string(precision_name(precision));
}

std::string run_error_text(std::string_view what, Precision precision, const torch::Device& device) {
  std::string text(what.substr(0, what.find('\n')));
  if (precision == Precision::kBf16 && device.is_cpu() &&
      text.find("could not create a primitive descriptor") != std::string::npos) {
    text +=
        " (bf16 on the CPU: this LibTorch's oneDNN has no bfloat16 kernel for one of the model's layers on this "
        "processor; fp32 runs)";
  }
  return text;
}

Tf32Scope::Tf32Scope(bool enable)
    : cublas_(at::globalContext().allowTF32CuBLAS()), cudnn_(at::globalContext().allowTF32CuDNN()) {
  at::globalContext().setAllowTF32CuBLAS(enable);
  at::globalContext().setAllowTF32CuDNN(enable);
}

Tf32Scope::~Tf32Scope() {
  at::globalContext().setAllowTF32CuBLAS(cublas_);
  at::globalContext().setAllowTF32CuDNN(cudnn_);
}

AutocastScope::AutocastScope(Precision precision, const torch::Device& device) {
  if (precision != Precision::kAmpFp16 && precision != Precision::kBf16) return;
  active_ = true;
  cuda_ = device.is_cuda();
  const auto dtype = precision == Precision::kAmpFp16 ? at::kHalf : at::kBFloat16;
  if (cuda_) {
    previous_enabled_ = at::autocast::is_enabled();
    previous_dtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_enabled(true);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    previous_enabled_ = at::autocast::is_cpu_enabled();
    previous_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Casted weight copies are cached per autocast region; drop them when the outermost one ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  if (cuda_) {
    at::autocast::set_enabled(previous_enabled_);
    at::autocast::set_autocast_gpu_dtype(previous_dtype_);
  } else {
    at::autocast::set_cpu_enabled(previous_enabled_);
    at::autocast::set_autocast_cpu_dtype(previous_dtype_);
  }
}

}  // namespace jetchar::experiments
