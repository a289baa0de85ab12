// The board's controls: every attribute jetchar may write, found by discovery (cpu topology,
// GPU devfreq, EMC, fans) and by the board's own nvpmodel configuration. The allowlist built here
// is the only gate through which device control writes pass: a path that discovery did not name
// is never written, whatever a mode or a configuration file asks.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/control/nvpmodel_config.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct CpuCoreControl {
  int cpu = 0;
  bool online = false;
  std::optional<std::string> online_path;       ///< absent for a core that cannot be hot-plugged
  std::vector<std::string> idle_disable_paths;  ///< cpuidle/stateK/disable
};

/// One cpufreq policy (a cluster). Frequencies in kHz, ascending.
struct CpuClusterControl {
  std::string name;         ///< "policy4"
  std::string policy_path;  ///< "/sys/devices/system/cpu/cpufreq/policy4"
  std::vector<int> cpus;    ///< related_cpus
  std::vector<std::int64_t> available_khz;
  std::vector<std::string> governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_khz;
  std::optional<std::int64_t> max_khz;

  std::string attribute(std::string_view name) const { return policy_path + "/" + std::string(name); }
};

/// The GPU's devfreq node. Frequencies in Hz, ascending.
struct GpuControl {
  std::string name;          ///< devfreq name, "17000000.gv11b"
  std::string devfreq_path;  ///< "/sys/class/devfreq/17000000.gv11b"
  std::vector<std::int64_t> available_hz;
  std::vector<std::string> governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_hz;
  std::optional<std::int64_t> max_hz;
  std::optional<std::string> railgate_path;

  std::string attribute(std::string_view name) const { return devfreq_path + "/" + std::string(name); }
};

/// EMC: the nvpmodel cap (sysfs) and, where readable, the clock itself (debugfs). Hz.
struct EmcControl {
  std::optional<std::string> interface;  ///< "bpmp debugfs", "tegra210 clk debugfs", ...
  std::optional<std::string> cap_path;   ///< 0 = no cap
  std::optional<std::string> rate_path;  ///< current rate (read-back for the settle step)
  /// Where a pinned rate is written and how it is locked (BPMP: rate + mrq_rate_locked;
  /// tegra210: clk_update_rate + clk_state). Absent where the interface offers no pinning.
  std::optional<std::string> set_rate_path;
  std::optional<std::string> lock_path;
  /// A devfreq node that scales the EMC (AGX Thor's bwmgr): pinned like the GPU, through its
  /// min_freq and max_freq.
  std::optional<std::string> devfreq_path;
  std::vector<std::int64_t> available_hz;  ///< BPMP possible rates; empty when unknown
  std::optional<std::int64_t> max_hz;
  std::optional<std::string> note;  ///< why control is limited (needs root, ...)
};

struct FanControl {
  std::string pwm_path;                  ///< 0-255
  std::optional<std::string> mode_path;  ///< hwmon pwm1_enable (1 = manual) or R32 temp_control
  bool mode_is_temp_control = false;     ///< R32: 0 = manual
};

struct DeviceControls {
  std::vector<CpuCoreControl> cores;
  std::vector<CpuClusterControl> clusters;
  std::optional<GpuControl> gpu;
  std::optional<EmcControl> emc;
  std::vector<FanControl> fans;
  /// The board's nvpmodel configuration, when it has one that parses.
  std::optional<NvpmodelConfig> nvpmodel;
  std::optional<std::string> nvpmodel_status_path;  ///< /var/lib/nvpmodel/status when present

  /// Canonical kernel paths that may be written.
  std::set<std::string> allowlist;

  const CpuClusterControl* cluster_of(int cpu) const;
  const CpuCoreControl* core(int cpu) const;
  /// True when `path` (resolved to its canonical form under `root`) is a discovered control.
  bool allowed(const sysfs::Root& root, std::string_view path) const;
};

/// Discovers the controls under `root`. /etc/nvpmodel.conf is parsed when present; a malformed
/// one throws NvpmodelParseError (file, line, expectation).
DeviceControls discover_device_controls(const sysfs::Root& root);

/// Resolves a PARAM argument to the path that exists on this board (primary, else *_KNEXT; for a
/// TYPE=HWMON argument, its attribute in the first hwmonN folder under the path that has it).
std::optional<std::string> existing_param_path(const sysfs::Root& root, const ParamArgument& argument);

}  // namespace jetchar::jetson
