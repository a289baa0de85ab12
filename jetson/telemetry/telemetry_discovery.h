// Turns board discovery (INA3221 rails, CPU policies, GPU, EMC, thermal zones, host sensors) into
// the sampler's plain list of files. Anything a discovery step cannot find is left out with a
// note; nothing is invented.
#pragma once

#include "jetson/discovery/cpu_topology.h"
#include "jetson/discovery/emc_clock.h"
#include "jetson/discovery/gpu_device.h"
#include "jetson/discovery/host_sensors.h"
#include "jetson/discovery/power_monitors.h"
#include "jetson/discovery/thermal.h"
#include "jetson/nvml/nvml_library.h"
#include "jetson/telemetry/telemetry_sources.h"
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

/// Adds the GPUs of an opened NVML to `sources` (nvml0, nvml1, ... by NVML index), or a note
/// saying why NVML is absent.
void add_nvml_sources(TelemetrySources& sources, const NvmlLibrary::Opened& nvml);

/// Runs every discovery step on `root` and converts the result. NVML is probed only for this
/// machine's own root ("/"): a simulated board or a copied tree has no driver behind it.
TelemetrySources discover_telemetry_sources(const sysfs::Root& root);

}  // namespace jetchar::jetson
