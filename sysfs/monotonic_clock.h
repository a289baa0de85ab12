// The one clock every timestamp in jetchar is taken on: CLOCK_MONOTONIC, in nanoseconds.
// Telemetry samples, meter readings, GPIO markers, energy windows and the training loop's phase
// times are compared with each other, so they must all read the same clock; a wall clock would
// jump with NTP. std::chrono::steady_clock is this clock on Linux (libstdc++'s steady_clock::now()
// calls clock_gettime(CLOCK_MONOTONIC)), so code that keeps std::chrono time points stays on it.
#pragma once

#include <cstdint>

namespace jetchar::sysfs {

/// CLOCK_MONOTONIC now, in nanoseconds since an unspecified start (boot, on Linux).
std::int64_t monotonic_ns();

}  // namespace jetchar::sysfs
