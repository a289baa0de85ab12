// What `jetchar device snapshot` records: the current value of every control jetchar may write on
// a board, as journal entries that `jetchar device restore FILE` writes back. The sysfs controls
// are the allowlist of control_points.h (cores first, so that a restore, which runs in reverse,
// brings frequencies back before cores go offline). On this host, each NVML GPU's power limit is
// one too ("nvml:<uuid>/power_limit_mw"); its locked clocks are not, because NVML has no call that
// reports them (nvml.h), so a snapshot could only guess their value.
#pragma once

#include <string>
#include <vector>

#include "sysfs/change_journal.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct ControlSnapshot {
  std::vector<sysfs::JournalEntry> entries;
  std::vector<std::string> left_out;  ///< a control that could not be read, with the reason
};

/// Reads every control of the board under `root`. A control that cannot be read is left out with
/// the reason; the rest is still recorded.
ControlSnapshot snapshot_controls(const sysfs::Root& root);

}  // namespace jetchar::jetson
