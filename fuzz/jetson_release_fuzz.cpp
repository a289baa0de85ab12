// Fuzzes the board-identity parsers: /etc/nv_tegra_release, the nvidia-l4t-core package
// version, and the device-tree nvidia,dtsfilename. Each must either parse or throw FormatError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/discovery/board_identity.h"
#include "jetson/discovery/l4t_release.h"
#include "sysfs/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto release = jetchar::jetson::parse_nv_tegra_release(text, "/etc/nv_tegra_release");
    (void)jetchar::jetson::jetpack_for(release);
    (void)release.version();
  } catch (const jetchar::sysfs::FormatError&) {
  }
  try {
    (void)jetchar::jetson::parse_l4t_package_version(text, "dpkg");
  } catch (const jetchar::sysfs::FormatError&) {
  }
  try {
    const auto dts = jetchar::jetson::parse_dts_filename(text, "/proc/device-tree/nvidia,dtsfilename");
    if (dts.module_pnumber) (void)jetchar::jetson::module_name_for(*dts.module_pnumber);
  } catch (const jetchar::sysfs::FormatError&) {
  }
  return 0;
}
