#include "experiments/training/out_of_memory.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace jetchar::experiments {
namespace {

TEST(OutOfMemoryTest, RecognisesTheCpuAllocatorsRealError) {
  try {
    auto huge = torch::empty({1'000'000'000'000'000LL}, torch::kFloat);
    FAIL() << "4 PB allocation succeeded";
  } catch (const std::exception& error) {
    EXPECT_TRUE(is_out_of_memory(error)) << error.what();
  }
}

TEST(OutOfMemoryTest, RecognisesCudaTextAndBadAlloc) {
  EXPECT_TRUE(is_out_of_memory(std::runtime_error("CUDA out of memory. Tried to allocate 2.00 GiB")));
  EXPECT_TRUE(is_out_of_memory(std::bad_alloc()));
  EXPECT_FALSE(is_out_of_memory(std::runtime_error("Expected input batch_size (4) to match target batch_size (3)")));
}

}  // namespace
}  // namespace jetchar::experiments
