// Whether a call returns at all: for properties such as "stop() interrupts a sampler that waits
// 1000 s" or "drain() never waits for an unplugged meter", where the faulty code would block
// indefinitely. The limit is a deadlock detector far above any scheduling delay, never a speed
// check (speeds live in bench/).
#pragma once

#include <chrono>
#include <functional>

namespace jetchar::testing {

/// Runs `call` on a thread of its own and reports whether it returned within `limit`. A call
/// that never returns is left running on its detached thread, so the test can fail and go on; an
/// exception the call throws is rethrown here.
bool returns(std::function<void()> call, std::chrono::seconds limit = std::chrono::seconds(60));

}  // namespace jetchar::testing
