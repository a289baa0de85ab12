// The current nvpmodel mode and NVIDIA's own `nvpmodel` program.
//
// The mode nvpmodel last applied persists in /var/lib/nvpmodel/status as "pmode:0002" (it
// overrides PM_CONFIG DEFAULT on reboot). `nvpmodel -q` prints "NV Power Mode: <NAME>" and the id
// on the next line, possibly after "NVPM WARN: ..." lines. The program is run with fork/execv and
// an argument vector — never through a shell — and only when it exists under the board root.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

inline constexpr const char* kNvpmodelBinary = "/usr/sbin/nvpmodel";
inline constexpr const char* kNvpmodelStatusFile = "/var/lib/nvpmodel/status";

struct NvpmodelCurrent {
  std::optional<int> id;
  std::optional<std::string> name;  ///< from `nvpmodel -q` only
  std::string source;               ///< "/var/lib/nvpmodel/status" or "nvpmodel -q"
};

/// "pmode:0002 fmode:fanNull" (the form nvpmodel writes: the mode id as %04d, then the fan mode of
/// the conf's FAN_CONFIG, fanNull without one) or a bare "pmode:0002" -> 2. Throws
/// sysfs::FormatError naming `source` for anything else.
int parse_nvpmodel_status(std::string_view text, std::string_view source);
/// The fan mode token of a status file ("fanNull", "quiet", "cool"); nullopt when it has none.
std::optional<std::string> nvpmodel_status_fan_mode(std::string_view text);
/// Parses `nvpmodel -q` output; nullopt when it has no "NV Power Mode:" line.
std::optional<NvpmodelCurrent> parse_nvpmodel_query(std::string_view output);

/// Text for the status file, as nvpmodel writes it: "pmode:0002 fmode:fanNull", or "pmode:0002"
/// without a fan mode (the form that earlier status files of some boards hold).
std::string format_nvpmodel_status(int id, const std::optional<std::string>& fan_mode = std::nullopt);

/// The current mode: the status file when present, else `nvpmodel -q` when the program exists
/// under the root; nullopt when neither tells.
std::optional<NvpmodelCurrent> current_nvpmodel_mode(const sysfs::Root& root);

struct ProcessResult {
  int exit_code = -1;  ///< -1 when killed by a signal (timeout included)
  bool timed_out = false;
  std::string output;  ///< stdout and stderr together
};

/// Runs `argv[0]` (an absolute path) with fork/execv, feeding `input` on stdin. Throws
/// std::system_error when the process cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout);

/// True when `nvpmodel` exists (and is executable) under the root.
bool nvpmodel_available(const sysfs::Root& root);

/// Runs `nvpmodel -m <id>` under the root. nvpmodel asks on stdin before a mode that needs a
/// reboot; `confirm_reboot` answers YES (the board reboots), otherwise NO. Throws
/// std::runtime_error with nvpmodel's output when it fails.
ProcessResult nvpmodel_set_mode(const sysfs::Root& root, int id, bool confirm_reboot);

}  // namespace jetchar::jetson
