// Who the board is: Jetson or generic host, family, module and carrier P-numbers, SoC, L4T and
// JetPack. Read from the device tree (`model`, `compatible`, `nvidia,dtsfilename`,
// `nvidia,boardids`) and /etc/nv_tegra_release (formats: docs/kernel-formats.md), falling back to
// the dpkg status of nvidia-l4t-core; the kernel release only hints at the L4T line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/discovery/l4t_release.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

enum class BoardKind { kJetson, kHost };
std::string_view to_string(BoardKind kind);

/// What `nvidia,dtsfilename` tells: "…/tegra234-p3767-0003-p3768-0000-a0.dts" -> tegra234,
/// module p3767-0003, carrier p3768-0000.
struct DtsFilename {
  std::string soc;
  std::optional<std::string> module_pnumber;
  std::optional<std::string> carrier_pnumber;
};
/// Throws sysfs::FormatError naming `source` when the file name does not start with
/// "tegra<digits>-".
DtsFilename parse_dts_filename(std::string_view value, std::string_view source);

/// Family and marketing name of a module P-number ("p3767-0003" -> "Orin Nano", "Jetson Orin
/// Nano 8GB"), from the data table in board_identity.cpp; nullopt when unknown.
struct ModuleName {
  std::string family;
  std::string name;
};
std::optional<ModuleName> module_name_for(std::string_view module_pnumber);

struct BoardIdentity {
  BoardKind kind = BoardKind::kHost;
  /// Device-tree folder used ("/proc/device-tree"); nullopt when the machine has no device tree.
  std::optional<std::string> device_tree_path;
  std::optional<std::string> model;
  std::vector<std::string> compatible;
  std::optional<std::string> dts_filename;
  std::optional<std::string> serial_number;
  std::optional<std::string> soc;              ///< tegra210, tegra194, tegra234, ...
  std::optional<std::string> family;           ///< "AGX Orin", "Orin Nano", "Nano", ...
  std::optional<std::string> family_source;    ///< which input decided the family
  std::optional<std::string> module_pnumber;   ///< "p3701-0005"
  std::optional<std::string> module_name;      ///< "Jetson AGX Orin 64GB"
  std::optional<std::string> module_source;    ///< "compatible", "nvidia,dtsfilename", ...
  std::optional<std::string> carrier_pnumber;  ///< "p3737-0000"
  std::optional<L4tRelease> l4t;
  std::optional<std::string> l4t_source;  ///< file the release came from
  /// Why the L4T release is missing, or what the kernel release hints at when it is.
  std::optional<std::string> l4t_note;
  std::optional<std::string> jetpack;
  std::optional<std::string> kernel_release;  ///< /proc/sys/kernel/osrelease
  std::optional<std::string> os_name;         ///< PRETTY_NAME of /etc/os-release
};

/// Reads the identity under `root`. Throws sysfs::FormatError for a malformed release file or
/// device-tree string (naming the file and the value), sysfs::IoError for an unreadable one.
BoardIdentity discover_board_identity(const sysfs::Root& root);

}  // namespace jetchar::jetson
