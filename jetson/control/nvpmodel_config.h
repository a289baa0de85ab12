// NVIDIA nvpmodel configuration files (/etc/nvpmodel.conf -> /etc/nvpmodel/nvpmodel_<board>.conf).
//
// Syntax (NVIDIA's conf header, reference §3.1):
//   < PARAM TYPE=FILE|CLOCK NAME=X >        then "ARG_NAME /kernel/path" lines
//   < POWER_MODEL ID=n NAME=S >             then "PARAM ARG VALUE" lines
//   < PM_CONFIG DEFAULT=n >                 mandatory, names the boot default
//   < FAN_CONFIG DEFAULT=cool >             optional (Xavier confs)
//   < PARAM TYPE=HWMON NAME=X >             then "ARG_NAME /device/hwmon ATTRIBUTE" lines (Xavier
//                                           NX on L4T R35: VDDIN_OC_LIMIT WARN .../7-0040/hwmon curr1_max)
// An HWMON argument names a file in the hwmonN folder under its path, N being whatever the board
// numbered it; its values are written as they are, like a FILE param's, so it is parsed as a FILE
// param that carries the attribute (ParamArgument::hwmon_attribute).
// CLOCK arguments may carry a "*_KNEXT" alternate path used by newer kernels. CLOCK values are
// integers where -1 means "no cap"; units are those of the file written (CPU kHz, GPU/EMC Hz).
// FILE values are strings ("on", "auto", "0", "1"). '#' starts a comment.
//
// The parser is pure: it turns text into a validated model and reports the first problem with
// file, line and what was expected. Applying a mode lives in jetson/power_mode_*.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

/// A malformed nvpmodel configuration: the message is "<file>:<line>: <problem>".
class NvpmodelParseError : public std::invalid_argument {
 public:
  NvpmodelParseError(const std::string& source, int line, const std::string& problem);
  int line() const { return line_; }

 private:
  int line_;
};

enum class ParamType { kFile, kClock };

/// One argument of a PARAM block: a name and the kernel attribute it stands for.
struct ParamArgument {
  std::string name;                  ///< e.g. MAX_FREQ, CORE_4, TPC_PG_MASK
  std::string path;                  ///< absolute kernel path
  std::optional<std::string> knext;  ///< the *_KNEXT alternate for newer kernels, when given
  /// TYPE=HWMON: the attribute in `path`/hwmonN (e.g. curr1_max); `path` is the hwmon class folder.
  std::optional<std::string> hwmon_attribute;
  int line = 0;
};

struct ParamDefinition {
  ParamType type = ParamType::kFile;  ///< kFile also for TYPE=HWMON (see hwmon)
  bool hwmon = false;                 ///< declared TYPE=HWMON
  std::string name;                   ///< e.g. CPU_ONLINE, CPU_A78_0, GPU, EMC
  std::vector<ParamArgument> arguments;
  int line = 0;

  const ParamArgument* find(std::string_view argument) const;
};

/// "PARAM ARG VALUE" inside a POWER_MODEL block, in file order (nvpmodel applies in that order).
struct ModeSetting {
  std::string param;
  std::string argument;
  std::string value;
  /// For CLOCK params: the parsed integer; nullopt for -1 (no cap).
  std::optional<std::int64_t> clock_value;
  bool is_clock = false;
  int line = 0;
};

struct PowerModel {
  int id = 0;
  std::string name;
  std::vector<ModeSetting> settings;
  int line = 0;

  /// The value of PARAM/ARG in this mode, if the mode sets it (the last setting wins).
  const ModeSetting* find(std::string_view param, std::string_view argument) const;
};

/// Caps of a mode in the form `jetchar device modes` prints. Missing = the mode does not say.
struct PowerModelSummary {
  std::vector<int> online_cores;  ///< cores set to 1 (cores the mode does not list are absent)
  std::vector<int> offline_cores;
  /// Per CPU cluster PARAM (CPU_A78_0, ...): MAX_FREQ in kHz; nullopt inside = -1 (no cap).
  std::map<std::string, std::optional<std::int64_t>> cpu_max_khz;
  std::optional<std::optional<std::int64_t>> gpu_max_hz;
  /// EMC MAX_FREQ in Hz; 0 and -1 both mean "no cap" and are reported as an empty inner optional.
  std::optional<std::optional<std::int64_t>> emc_max_hz;
  std::optional<std::string> tpc_pg_mask;
};

struct NvpmodelConfig {
  std::string source;  ///< file name used in messages
  std::vector<ParamDefinition> params;
  std::vector<PowerModel> modes;
  int default_mode = 0;
  /// Attributes of < FAN_CONFIG ... > (e.g. DEFAULT=cool); empty when the file has none.
  std::map<std::string, std::string> fan_config;

  const ParamDefinition* find_param(std::string_view name) const;
  const PowerModel* find_mode(int id) const;
  /// Throws std::invalid_argument naming the id and the valid ones.
  const PowerModel& mode(int id) const;
  /// A mode by its id ("2") or its exact NAME ("MAXN_SUPER"); throws std::invalid_argument naming
  /// the text and the valid ids and names.
  const PowerModel& mode(std::string_view id_or_name) const;
};

/// Parses configuration text. `source` names the file in error messages.
NvpmodelConfig parse_nvpmodel_config(std::string_view text, const std::string& source);
/// Reads and parses `path` (default /etc/nvpmodel.conf, a symlink on real boards) under `root`.
NvpmodelConfig read_nvpmodel_config(const sysfs::Root& root, std::string_view path = "/etc/nvpmodel.conf");

/// True when `param` names a CPU cluster clock (CPU_A57, CPU_DENVER_1, CPU_A78_2, ...).
bool is_cpu_cluster_param(std::string_view param);
/// The caps of a mode, for display and for deciding whether a reboot is needed.
PowerModelSummary summarize(const PowerModel& mode);

}  // namespace jetchar::jetson
