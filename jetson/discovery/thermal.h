// Thermal zones, matched by `type` (names change between L4T lines; indexes are not stable).
// Temperatures are m°C; -256 °C means the domain is power-gated (reported as offline), and newer
// tegra-bpmp-thermal drivers refuse the read instead (EAGAIN), which means the same;
// PMIC-Die always reads 100 °C on R32 and is flagged as not a measurement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct ThermalZone {
  std::string zone;  ///< "thermal_zone3"
  std::string type;  ///< "GPU-therm", "gpu-thermal", "tj", ...
  std::optional<std::int64_t> temp_mc;
  bool powered_off = false;    ///< reads -256 °C
  bool fixed_reading = false;  ///< PMIC-Die: a constant, not a measurement
  std::optional<std::string> note;
};

struct ThermalDiscovery {
  std::vector<ThermalZone> zones;
  std::optional<std::string> absent;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

ThermalDiscovery discover_thermal_zones(const sysfs::Root& root);

}  // namespace jetchar::jetson
