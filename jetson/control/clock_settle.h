// The settle step after clock writes: firmware applies some limits asynchronously (BPMP may take
// a moment, or silently ignore an EMC rate), so after writing, the current clocks are polled
// until each reads back inside the range that was set, or a timeout passes.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "jetson/control/power_mode.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct SettleOutcome {
  std::string what;
  std::string path;
  std::optional<std::int64_t> last_value;  ///< nullopt when unreadable
  bool settled = false;
  bool pinned = false;
};

struct SettleResult {
  std::vector<SettleOutcome> outcomes;
  std::chrono::milliseconds waited{0};
  /// True when every pinned clock settled (unpinned ones only warn: DVFS moves them).
  bool pinned_settled() const;
  /// "GPU frequency reads 306 (expected 1300500000..1300500000)" for each clock that did not settle.
  std::vector<std::string> problems() const;
};

/// Polls every `poll` until all targets read within range or `timeout` passes.
SettleResult settle_clocks(const sysfs::Root& root, const std::vector<SettleTarget>& targets,
                           std::chrono::milliseconds timeout, std::chrono::milliseconds poll);

}  // namespace jetchar::jetson
