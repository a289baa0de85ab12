#include "analysis/parallel_for.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace jetchar::analysis {
namespace {

TEST(ParallelFor, CallsEveryIndexOnce) {
  for (std::size_t count : {0, 1, 2, 97}) {
    std::vector<std::atomic<int>> calls(count);
    parallel_for(count, [&](std::size_t i) { ++calls[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i], 1) << "index " << i << " of " << count;
  }
}

TEST(ParallelFor, RethrowsTheFirstErrorAfterEveryThreadStopped) {
  std::atomic<int> running{0}, most{0};
  EXPECT_THROW(parallel_for(50,
                            [&](std::size_t i) {
                              const int now = ++running;
                              most = std::max(most.load(), now);
                              std::this_thread::sleep_for(std::chrono::milliseconds(1));
                              --running;
                              if (i == 3) throw std::runtime_error("fold 3");
                            }),
               std::runtime_error);
  EXPECT_EQ(running, 0);
  EXPECT_LE(most, static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
}

TEST(ParallelFor, ANestedLoopRunsOnItsCallersThread) {
  std::atomic<bool> nested_elsewhere{false};
  parallel_for(4, [&](std::size_t) {
    const auto outer = std::this_thread::get_id();
    parallel_for(8, [&](std::size_t) {
      if (std::this_thread::get_id() != outer) nested_elsewhere = true;
    });
  });
  EXPECT_FALSE(nested_elsewhere);
}

}  // namespace
}  // namespace jetchar::analysis
