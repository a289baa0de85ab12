#include "experiments/compute_threads.h"

#include <dlfcn.h>
#include <torch/torch.h>

namespace jetchar::experiments {
namespace {

// A function of the OpenBLAS already loaded (RTLD_NOLOAD: never loads one), or null.
template <typename Function>
Function openblas_function(const char* name) {
  void* handle = ::dlopen("libopenblas.so.0", RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  auto* function = reinterpret_cast<Function>(::dlsym(handle, name));
  // The library stays loaded: LibTorch holds it, and this handle only counted one more reference.
  ::dlclose(handle);
  return function;
}

}  // namespace

int set_compute_threads(int threads) {
  if (torch::get_num_threads() != threads) torch::set_num_threads(threads);
  if (auto* set = openblas_function<void (*)(int)>("openblas_set_num_threads")) set(threads);
  return torch::get_num_threads();
}

int openblas_threads() {
  auto* get = openblas_function<int (*)()>("openblas_get_num_threads");
  return get != nullptr ? get() : 0;
}

}  // namespace jetchar::experiments
