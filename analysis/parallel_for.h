// Independent fits on every core: cross-validation fits each form once per fold, and those fits
// share nothing, so they run side by side (a 2-core machine halves `analyze predict`).
#pragma once

#include <cstddef>
#include <functional>

namespace jetchar::analysis {

/// Calls body(i) once for every i in [0, count), on up to std::thread::hardware_concurrency()
/// threads (the calling one among them). Within a body a nested parallel_for runs serially, so
/// nesting never multiplies the threads. The first exception a body throws is rethrown once every
/// thread has stopped; the indices not yet started are then skipped.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& body);

}  // namespace jetchar::analysis
