#include "jetson/discovery/thermal.h"

#include "jetson/discovery/sysfs_natural_sort.h"
#include "sysfs/attribute.h"
#include "sysfs/error.h"

#include <cerrno>

namespace jetchar::jetson {
namespace {

constexpr std::int64_t kPoweredOffMc = -256000;

// A sensor that cannot be read right now (docs/kernel-formats.md, thermal rows).
constexpr ErrnoMeaning kTempErrors[] = {
    {EAGAIN, "the sensor's domain is powered off (tegra-bpmp-thermal)"},
    {ENODATA, "the sensor has no reading"},
};

}  // namespace

ThermalDiscovery discover_thermal_zones(const sysfs::Root& root) {
  ThermalDiscovery result;
  AttributeReader read(root, result.unavailable);
  for (const auto& dir : natural_sorted(root.glob("/sys/class/thermal/thermal_zone*"))) {
    ThermalZone zone;
    zone.zone = dir.substr(dir.rfind('/') + 1);
    zone.type = read.text(dir + "/type", zone.zone + " type").value_or("");
    const std::string temp = dir + "/temp";
    const std::size_t notes_before = result.unavailable.size();
    zone.temp_mc = read.integer(temp, zone.zone + " (" + zone.type + ") temp", kTempErrors);
    if (result.unavailable.size() > notes_before) zone.note = "temp unavailable: " + result.unavailable.back().reason;
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
