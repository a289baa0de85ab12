#include "sysfs/monotonic_clock.h"

#include <time.h>

namespace jetchar::sysfs {

std::int64_t monotonic_ns() {
  // clock_gettime(2) fails only for a clock id the kernel does not know (EINVAL) or a bad pointer
  // (EFAULT); CLOCK_MONOTONIC exists on every Linux jetchar runs on, so there is no error to pass on.
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace jetchar::sysfs
