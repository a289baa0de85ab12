// Out of memory is a result of a run, not a crash: the runners catch allocation failures from
// LibTorch's CPU allocator ("DefaultCPUAllocator: can't allocate memory"), the CUDA caching
// allocator ("CUDA out of memory") and std::bad_alloc, record status OOM and let the process go on.
#pragma once

#include <exception>

namespace jetchar::experiments {

bool is_out_of_memory(const std::exception& error);

}  // namespace jetchar::experiments
