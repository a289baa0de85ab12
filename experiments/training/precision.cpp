#include "experiments/training/precision.h"

#include <ATen/autocast_mode.h>
#include <fmt/format.h>
#include <torch/version.h>

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

namespace {

// LibTorch 2.4 replaced the per-device autocast switches (is_enabled for CUDA, is_cpu_enabled, ...)
// by ones that take the device type, and deprecated the old names; NVIDIA's Jetson wheels and
// desktop images carry 2.x, Debian 1.13.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocast_enabled(at::DeviceType type) { return at::autocast::is_autocast_enabled(type); }
at::ScalarType autocast_dtype(at::DeviceType type) { return at::autocast::get_autocast_dtype(type); }
void set_autocast(at::DeviceType type, bool enabled, at::ScalarType dtype) {
  at::autocast::set_autocast_enabled(type, enabled);
  at::autocast::set_autocast_dtype(type, dtype);
}
#else
bool autocast_enabled(at::DeviceType type) {
  return type == at::kCUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
at::ScalarType autocast_dtype(at::DeviceType type) {
  return type == at::kCUDA ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
void set_autocast(at::DeviceType type, bool enabled, at::ScalarType dtype) {
  if (type == at::kCUDA) {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
}
#endif

}  // namespace

AutocastScope::AutocastScope(Precision precision, const torch::Device& device) {
  if (precision != Precision::kAmpFp16 && precision != Precision::kBf16) return;
  active_ = true;
  cuda_ = device.is_cuda();
  const auto type = cuda_ ? at::kCUDA : at::kCPU;
  previous_enabled_ = autocast_enabled(type);
  previous_dtype_ = autocast_dtype(type);
  set_autocast(type, true, precision == Precision::kAmpFp16 ? at::kHalf : at::kBFloat16);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Casted weight copies are cached per autocast region; drop them when the outermost one ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast(cuda_ ? at::kCUDA : at::kCPU, previous_enabled_, previous_dtype_);
}

}  // namespace jetchar::experiments
