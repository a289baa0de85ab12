// The CPU threads a run computes with. torch::set_num_threads sizes LibTorch's intra-op pool (and
// MKL's, where LibTorch has MKL), but not OpenBLAS, which Debian's LibTorch does its matrix products
// in (libblas.so.3 -> libopenblas.so.0, the pthread variant): OpenBLAS keeps a pool of one thread
// per core that spins (sched_yield) between calls. A run asked to compute on one thread then kept a
// second core busy, which a 4-core board takes from its data loader and a loaded host from the run.
#pragma once

namespace jetchar::experiments {

/// Sets LibTorch's intra-op threads and, where OpenBLAS is already in the process, OpenBLAS's
/// threads to `threads`; returns LibTorch's count afterwards.
int set_compute_threads(int threads);

/// OpenBLAS's thread count, or 0 where the process has no OpenBLAS.
int openblas_threads();

}  // namespace jetchar::experiments
