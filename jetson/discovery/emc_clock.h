// The external memory controller (EMC) clock. Its rate lives in debugfs (BPMP on tegra186/194/
// 234, the CCF override clock on tegra210), which only root can read: unreadable debugfs is
// reported as "needs root", not as an error. The nvpmodel cap lives in sysfs
// (`nvpmodel_emc_cap/emc_iso_cap` up to R35, `nvpmodel_clk_cap/emc` on R36). Rates are Hz. The
// BPMP files are firmware output: a unit suffix such as " (kHz)" is accepted wherever it appears.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

enum class EmcAccess {
  kReadable,   ///< the rate was read
  kNeedsRoot,  ///< debugfs exists but is not readable (or not mounted) for this user
  kAbsent,     ///< no known EMC interface on this machine
};
std::string_view to_string(EmcAccess access);

struct EmcClock {
  EmcAccess access = EmcAccess::kAbsent;
  std::optional<std::string> interface;  ///< "bpmp debugfs", "tegra210 clk debugfs", "devfreq bwmgr"
  std::optional<std::string> rate_path;
  std::optional<std::int64_t> cur_rate_hz;
  std::optional<std::int64_t> min_rate_hz;
  std::optional<std::int64_t> max_rate_hz;
  std::optional<bool> rate_locked;              ///< mrq_rate_locked (BPMP) / override clk_state (tegra210)
  std::vector<std::int64_t> possible_rates_hz;  ///< BPMP table (given in kHz by the kernel)
  std::optional<std::string> cap_path;
  /// nvpmodel cap; nullopt with a cap_path means "0 = no cap".
  std::optional<std::int64_t> cap_hz;
  /// Why the rate is missing (kNeedsRoot / kAbsent).
  std::optional<std::string> note;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

EmcClock discover_emc_clock(const sysfs::Root& root);

}  // namespace jetchar::jetson
