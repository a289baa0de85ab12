// `adaptive_profile { ... }` in a sweep spec, as `jetchar sweep run` shows it: the loop itself
// (which modes to profile, when to stop, the stored predictions) is
// sweeps/adaptive_profile_sweep.h, run by sweeps/session.h; this prints each profiled mode, the
// outcome and the predictions.
#pragma once

#include <filesystem>

#include "sweeps/adaptive_profile_sweep.h"

namespace jetchar::cli {

/// One profiled mode, to stderr, as the loop reaches it.
void print_profiled_mode(const sweeps::ProfiledMode& mode);

/// The outcome and the predictions (stored in `store_file`), to stdout; nothing for a loop a
/// signal stopped.
void print_adaptive_profile(const sweeps::AdaptiveProfileSweepResult& result, const std::filesystem::path& store_file);

}  // namespace jetchar::cli
