// Nanoseconds in a millisecond and a second, the unit of the energy tests' timestamps. Shared by
// the tests, which compile several to a translation unit (one definition each).
#pragma once

#include <cstdint>

namespace jetchar::jetson::energy {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kS = 1'000'000'000;

}  // namespace jetchar::jetson::energy
