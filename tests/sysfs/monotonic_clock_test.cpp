#include "sysfs/monotonic_clock.h"

#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <thread>

namespace jetchar::sysfs {
namespace {

std::int64_t clock_gettime_ns(clockid_t clock) {
  timespec ts{};
  EXPECT_EQ(::clock_gettime(clock, &ts), 0);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

TEST(MonotonicClock, ReadsClockMonotonic) {
  // Bracketed by two direct reads of CLOCK_MONOTONIC: the helper reads that clock, not another
  // (CLOCK_REALTIME is decades away from it, CLOCK_BOOTTIME differs by the time spent suspended).
  const std::int64_t before = clock_gettime_ns(CLOCK_MONOTONIC);
  const std::int64_t now = monotonic_ns();
  const std::int64_t after = clock_gettime_ns(CLOCK_MONOTONIC);
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

TEST(MonotonicClock, IsTheClockOfStdSteadyClock) {
  // Code that keeps std::chrono::steady_clock time points (the training and inference runners)
  // must be on the same clock as the samples it is matched with.
  const auto to_ns = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  const std::int64_t before = to_ns(std::chrono::steady_clock::now());
  const std::int64_t now = monotonic_ns();
  const std::int64_t after = to_ns(std::chrono::steady_clock::now());
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

TEST(MonotonicClock, NeverGoesBackAndAdvancesWithTime) {
  std::int64_t previous = monotonic_ns();
  for (int i = 0; i < 10000; ++i) {
    const std::int64_t now = monotonic_ns();
    ASSERT_GE(now, previous);
    previous = now;
  }
  const std::int64_t start = monotonic_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GE(monotonic_ns() - start, 2'000'000);  // a lower bound only: a busy machine sleeps longer
}

}  // namespace
}  // namespace jetchar::sysfs
