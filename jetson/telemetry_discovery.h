// Turns board discovery (INA3221 rails, CPU policies, GPU, EMC, thermal zones, host sensors) into
// the sampler's plain list of files. Anything a discovery step cannot find is left out with a
// note; nothing is invented.
#pragma once

#include "jetson/cpu_topology.h"
#include "jetson/emc_clock.h"
#include "jetson/gpu_device.h"
#include "jetson/host_sensors.h"
#include "jetson/power_monitors.h"
#include "jetson/telemetry_sources.h"
#include "jetson/thermal.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct DiscoveredSensors {
  PowerMonitors power;
  std::optional<CpuTopology> cpu;  ///< nullopt when /sys/devices/system/cpu is unusable
  GpuDiscovery gpu;
  EmcClock emc;
  ThermalDiscovery thermal;
  HostSensors host;
};

/// Pure conversion. `root` is only asked whether EMC activity counters exist.
TelemetrySources telemetry_sources_from(const sysfs::Root& root, const DiscoveredSensors& sensors);

/// Runs every discovery step on `root` and converts the result.
TelemetrySources discover_telemetry_sources(const sysfs::Root& root);

}  // namespace jetchar::jetson
