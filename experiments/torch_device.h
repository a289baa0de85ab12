// Device selection and the device synchronize that ends each timed section. On the CPU every
// LibTorch op has finished when it returns, so synchronize() is a no-op there; the runners call
// it anyway so the CPU and CUDA paths time the same sections.
#pragma once

#include <torch/torch.h>

#include <string>
#include <string_view>

namespace jetchar::experiments {

/// "cpu", "cuda" or "cuda:N". Throws std::invalid_argument for other text, or for CUDA when this
/// LibTorch has no CUDA or no GPU is visible (naming what is available).
torch::Device parse_device(std::string_view text);
void synchronize(const torch::Device& device);
/// Whether this build's LibTorch was compiled with CUDA (JETCHAR_WITH_CUDA).
bool built_with_cuda();
/// Releases cached allocator blocks after an out-of-memory failure (CUDA); no-op on the CPU.
void release_cached_memory(const torch::Device& device);

}  // namespace jetchar::experiments
