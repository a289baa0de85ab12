// Power modes as the study sweeps them: online CPU cores, CPU frequency (per cluster), GPU and
// EMC frequency, DVFS on/off, CPU idle states, GPU rail-gating and fan — and nvpmodel presets.
//
// Planning turns a requested mode into an ordered list of attribute writes, validated against
// what the board offers before anything is written:
//  - frequencies must be in the board's available list (error listing them in MHz, the way the
//    board lists them), unless `snap` asks for the nearest one;
//  - core counts beyond the board's are errors and CPU0 never goes offline;
//  - DVFS off pins min = max (what jetson_clocks does), DVFS on restores a range and the board's
//    governors (schedutil for cpufreq, nvhost_podgov for the GPU, where available);
//  - min/max pairs are ordered so that min <= max holds after every write (raising: max first,
//    lowering: min first);
//  - cores that come online are written first, cores that go offline last, and clusters whose
//    cores all end offline are not written (the kernel refuses writes to an inactive policy).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "jetson/control/control_points.h"
#include "sysfs/change_journal.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

enum class DvfsSetting { kOn, kOff };
enum class FanSetting { kMax, kDefault };

struct CustomPowerMode {
  std::optional<int> cpu_cores;                         ///< online cores: CPU0..N-1
  std::optional<std::string> cpu_freq_mhz;              ///< every cluster, as typed ("1420.8")
  std::map<std::string, std::string> cluster_freq_mhz;  ///< per policy ("policy4" -> "1497.6")
  std::optional<std::string> gpu_freq_mhz;
  std::optional<std::string> emc_freq_mhz;
  std::optional<DvfsSetting> dvfs;
  bool disable_cpu_idle = false;
  std::optional<bool> gpu_railgate;  ///< false keeps the GPU powered (jetson_clocks)
  std::optional<FanSetting> fan;

  bool empty() const;
  std::string describe() const;
};

struct PlannedWrite {
  std::string path;
  std::string value;  ///< written as is (with the newline `echo` would add)
  std::string what;   ///< "policy0 scaling_max_freq 1420.8 MHz"
};

/// After the writes, `path` must read a value within [min, max] (settle step).
struct SettleTarget {
  std::string what;
  std::string path;
  std::int64_t min = 0;
  std::int64_t max = 0;
  bool pinned = false;  ///< min == max: not settling is an error, not a warning
};

struct PowerModePlan {
  std::string description;
  std::vector<PlannedWrite> writes;
  std::vector<SettleTarget> settle;
  std::vector<std::string> notes;  ///< snapped values, attributes absent on this board, ...
  /// nvpmodel presets: the id, to run the real nvpmodel and to record the status file.
  std::optional<int> nvpmodel_id;
  bool reboot_required = false;
};

/// A mode that changes the GPU TPC power-gating mask, refused without --allow-reboot.
class RebootRequired : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// "1420.8" -> 1420800 with `units_per_mhz` 1000 (kHz). Throws std::invalid_argument naming
/// `what` for text that is not a positive decimal number.
std::int64_t parse_mhz(const std::string& text, std::int64_t units_per_mhz, const std::string& what);
/// 1420800 kHz -> "1420.8"; 114750000 Hz -> "114.75".
std::string format_mhz(std::int64_t value, std::int64_t units_per_mhz);

/// Plans a custom mode. `journal` (may be null) supplies the board's original values, used when
/// DVFS goes back on after an earlier pin. Throws std::invalid_argument for anything the board
/// does not offer.
PowerModePlan plan_custom_mode(const sysfs::Root& root, const DeviceControls& controls, const CustomPowerMode& mode,
                               bool snap, const sysfs::ChangeJournal* journal = nullptr);

/// Plans an nvpmodel preset as nvpmodel applies it: the POWER_MODEL's settings in file order,
/// -1 = the table's maximum, values rounded down to the frequency table, then the status file.
/// Throws std::invalid_argument for an unknown id or a board without a configuration, and
/// RebootRequired when the TPC mask changes and `allow_reboot` is false.
PowerModePlan plan_nvpmodel_mode(const sysfs::Root& root, const DeviceControls& controls, int id, bool allow_reboot);

}  // namespace jetchar::jetson
