// The experiments tests compute on one thread, LibTorch's pool and OpenBLAS's (set_compute_threads),
// unless a test sets another count itself. ctest runs three test processes on the 2-core machine,
// and with a pool per core OpenBLAS's idle threads spin in sched_yield waiting for work while the
// other processes want the cores: LeNet-5's two epochs on Fashion-MNIST took 50 s of CPU (13 s of
// it in the kernel) and 44 s, against 30 s and 29 s on one thread. A sweep run through the
// executor still sets its own count (the spec's threads, else the count in force when the
// executor was made).
#include <gtest/gtest.h>

#include "experiments/compute_threads.h"

namespace {

class OneComputeThreadEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { jetchar::experiments::set_compute_threads(1); }
};

[[maybe_unused]] ::testing::Environment* const kOneComputeThread =
    ::testing::AddGlobalTestEnvironment(new OneComputeThreadEnvironment);

}  // namespace
