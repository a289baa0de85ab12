#include "experiments/compute_threads.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace jetchar::experiments {
namespace {

// Debian's LibTorch multiplies matrices in OpenBLAS, whose own pool ignored torch::set_num_threads:
// a one-thread run kept a second thread spinning.
TEST(ComputeThreads, OpenBlasComputesOnAsManyThreadsAsLibTorch) {
  const int before = torch::get_num_threads();
  if (openblas_threads() == 0) GTEST_SKIP() << "no OpenBLAS in this process: LibTorch's BLAS is another";
  EXPECT_EQ(set_compute_threads(1), 1);
  EXPECT_EQ(openblas_threads(), 1);
  // A product big enough for OpenBLAS to split it over threads, had it kept its own count.
  const auto a = torch::ones({256, 256});
  EXPECT_EQ(torch::mm(a, a)[0][0].item<float>(), 256.0F);
  EXPECT_EQ(openblas_threads(), 1);
  EXPECT_EQ(set_compute_threads(2), 2);
  EXPECT_EQ(openblas_threads(), 2);
  set_compute_threads(before);
}

}  // namespace
}  // namespace jetchar::experiments
