// The CUDA stack a run used, recorded in its RunContext: the CUDA runtime and cuDNN versions this
// LibTorch was built with (at::detail::getCUDAHooks()) and the run's GPU, its name and compute
// capability (at::cuda::getDeviceProperties). Only a run on a CUDA device sets them, which needs a
// LibTorch built with CUDA (JETCHAR_WITH_CUDA); a CPU run, or a CPU-only LibTorch, leaves them unset.
#pragma once

#include <torch/torch.h>

#include <string>

#include "proto/run_result.pb.h"

namespace jetchar::experiments {

/// "12.6" from a CUDA version number as CUDART_VERSION writes it (major * 1000 + minor * 10).
std::string cuda_version_text(long version);
/// "8.9.7" from CUDNN_VERSION: major * 1000 + minor * 100 + patch before cuDNN 9, major * 10000 +
/// minor * 100 + patch from cuDNN 9 on ("9.3.0" from 90300).
std::string cudnn_version_text(long version);
/// "sm_87" from compute capability 8.7, as nvcc names the architecture.
std::string compute_capability_text(int major, int minor);

/// Sets `context`'s cuda_runtime_version, cudnn_version (when LibTorch has cuDNN), gpu_name and
/// gpu_compute_capability for a CUDA `device` (its index, else the current device); leaves them
/// unset for any other device and in a LibTorch built without CUDA.
void record_cuda_context(const torch::Device& device, proto::RunContext& context);

}  // namespace jetchar::experiments
