#include "experiments/torch_device.h"

#include <stdexcept>

#include <fmt/format.h>

#ifdef JETCHAR_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/cuda.h>
#endif

namespace jetchar::experiments {

bool built_with_cuda() {
#ifdef JETCHAR_WITH_CUDA
  return true;
#else
  return false;
#endif
}

torch::Device parse_device(std::string_view text) {
  if (text == "cpu") return torch::Device(torch::kCPU);
  if (text == "cuda" || text.starts_with("cuda:")) {
    if (!built_with_cuda()) {
      throw std::invalid_argument(fmt::format("device '{}': this LibTorch was built without CUDA; valid: cpu", text));
    }
    if (!torch::cuda::is_available()) {
      throw std::invalid_argument(fmt::format("device '{}': no CUDA GPU is visible; valid: cpu", text));
    }
    torch::Device device{std::string(text)};  // throws c10::Error for "cuda:x"
    const auto count = static_cast<std::int64_t>(torch::cuda::device_count());
    if (device.has_index() && device.index() >= count) {
      throw std::invalid_argument(
          fmt::format("device '{}': only {} CUDA device(s); valid: cuda:0 .. cuda:{}", text, count, count - 1));
    }
    return device;
  }
  throw std::invalid_argument(fmt::format("device '{}' is not valid; valid: cpu, cuda, cuda:N", text));
}

void synchronize([[maybe_unused]] const torch::Device& device) {
#ifdef JETCHAR_WITH_CUDA
  if (device.is_cuda()) torch::cuda::synchronize(device.has_index() ? device.index() : -1);
#endif
}

void release_cached_memory([[maybe_unused]] const torch::Device& device) {
#ifdef JETCHAR_WITH_CUDA
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

}  // namespace jetchar::experiments
