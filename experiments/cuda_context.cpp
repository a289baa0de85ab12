#include "experiments/cuda_context.h"

#include <fmt/format.h>

#ifdef JETCHAR_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace jetchar::experiments {

std::string cuda_version_text(long version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

std::string cudnn_version_text(long version) {
  if (version >= 90000) return fmt::format("{}.{}.{}", version / 10000, version % 10000 / 100, version % 100);
  return fmt::format("{}.{}.{}", version / 1000, version % 1000 / 100, version % 100);
}

std::string compute_capability_text(int major, int minor) { return fmt::format("sm_{}{}", major, minor); }

void record_cuda_context([[maybe_unused]] const torch::Device& device, [[maybe_unused]] proto::RunContext& context) {
#ifdef JETCHAR_WITH_CUDA
  if (!device.is_cuda()) return;
  const auto& hooks = at::detail::getCUDAHooks();
  context.set_cuda_runtime_version(cuda_version_text(hooks.versionCUDART()));
  if (hooks.hasCuDNN()) context.set_cudnn_version(cudnn_version_text(hooks.versionCuDNN()));
  const auto index = device.has_index() ? static_cast<std::int64_t>(device.index())
                                        : static_cast<std::int64_t>(c10::cuda::current_device());
  const cudaDeviceProp* properties = at::cuda::getDeviceProperties(index);
  context.set_gpu_name(properties->name);
  context.set_gpu_compute_capability(compute_capability_text(properties->major, properties->minor));
#endif
}

}  // namespace jetchar::experiments
