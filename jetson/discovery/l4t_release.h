// The L4T (Linux for Tegra) release of a Jetson board and the JetPack it belongs to.
// `/etc/nv_tegra_release` is authoritative; the JetPack mapping is kept as a data table
// (l4t_release.cpp) because a stale hard-coded mapping is the most common failure of peer tools.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jetchar::jetson {

struct L4tRelease {
  int major = 0;  ///< the R number: 32, 35, 36, 38, ...
  int minor = 0;  ///< first REVISION field: 4 in "REVISION: 4.4"
  int patch = 0;  ///< second REVISION field (0 when REVISION has one field)
  std::optional<std::string> gcid;
  std::optional<std::string> board;           ///< BOARD field: t210ref, t186ref, generic
  std::optional<std::string> kernel_variant;  ///< R38+: second line "# KERNEL_VARIANT: oot"

  /// "36.4.4"
  std::string version() const;
};

/// Parses the content of /etc/nv_tegra_release ("# R36 (release), REVISION: 4.4, GCID: ...").
/// Throws sysfs::FormatError naming `source`, the offending line and the expected form.
L4tRelease parse_nv_tegra_release(std::string_view text, std::string_view source);

/// Parses a Debian version of nvidia-l4t-core ("36.4.4-20250616085344"), the fallback when the
/// release file is missing (containers). Throws sysfs::FormatError naming `source`.
L4tRelease parse_l4t_package_version(std::string_view version, std::string_view source);

/// The JetPack release for an L4T release, from the data table; nullopt when the table does not
/// know it (report it as unknown, never guess).
std::optional<std::string> jetpack_for(const L4tRelease& release);

}  // namespace jetchar::jetson
