#include "jetson/thermal.h"

#include "jetson/sysfs_natural_sort.h"
#include "sysfs/attribute.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

constexpr std::int64_t kPoweredOffMc = -256000;

}  // namespace

ThermalDiscovery discover_thermal_zones(const sysfs::Root& root) {
  ThermalDiscovery result;
  for (const auto& dir : natural_sorted(root.glob("/sys/class/thermal/thermal_zone*"))) {
    ThermalZone zone;
    zone.zone = dir.substr(dir.rfind('/') + 1);
    zone.type = sysfs::try_read_string(root, dir + "/type").value_or("");
    if (root.exists(dir + "/temp")) {
      try {
        zone.temp_mc = sysfs::read_int(root, dir + "/temp");
      } catch (const sysfs::IoError& e) {
        // A gated sensor may fail the read (EINVAL/ENODATA) instead of reporting -256 °C.
        zone.note = std::string("temp not readable: ") + e.what();
      }
    }
    if (zone.temp_mc && *zone.temp_mc <= kPoweredOffMc) {
      zone.powered_off = true;
      zone.temp_mc.reset();
      zone.note = "powered off (reads -256 C)";
    }
    if (zone.type == "PMIC-Die") {
      zone.fixed_reading = true;
      zone.note = "PMIC-Die reports a fixed 100 C; not a measurement";
    }
    result.zones.push_back(std::move(zone));
  }
  if (result.zones.empty()) result.absent = "no /sys/class/thermal/thermal_zone* (no thermal zones exposed)";
  return result;
}

}  // namespace jetchar::jetson
