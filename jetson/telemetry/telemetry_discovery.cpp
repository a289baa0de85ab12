#include "jetson/telemetry/telemetry_discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace jetchar::jetson {
namespace {

// Memory-controller activity counters (jtop: util % = mc_all / EMC rate in kHz × 100).
constexpr const char* kEmcActivityPaths[] = {"/sys/kernel/actmon_avg_activity/mc_all",
                                             "/sys/kernel/debug/cactmon/mc_all"};

}  // namespace

TelemetrySources telemetry_sources_from(const sysfs::Root& root, const DiscoveredSensors& sensors) {
  TelemetrySources sources;
  const PowerMonitors& power = sensors.power;
  for (const auto& device : power.devices) {
    sources.power_monitors.push_back(PowerMonitorSettings{device.i2c_device, std::string(to_string(device.driver)),
                                                          device.samples, device.update_interval_ms,
                                                          device.running_mode});
    for (const auto& rail : device.rails) {
      if (!rail.connected) continue;
      RailSource source;
      source.name = rail.name;
      source.voltage_path = rail.voltage_path;
      source.current_path = rail.current_path;
      source.power_path = rail.power_path;
      source.power_mw_per_unit = rail.power_mw_per_unit;
      if (device.update_interval_ms) source.update_interval_ns = *device.update_interval_ms * 1'000'000;
      if (power.board_input_rail && rail.name == *power.board_input_rail) {
        source.role = energy::RailRole::kBoardInput;
      } else {
        // Fed by another measured rail (discover_power_monitors decides): never in a total.
        const bool sub = std::find(power.sub_rails.begin(), power.sub_rails.end(), rail.name) != power.sub_rails.end();
        source.role = sub ? energy::RailRole::kSubRail : energy::RailRole::kModule;
      }
      sources.rails.push_back(std::move(source));
    }
  }
  if (power.absent) sources.notes.push_back("power rails: " + *power.absent);

  if (sensors.cpu) {
    sources.cpus = sensors.cpu->possible;
    for (const auto& policy : sensors.cpu->policies) {
      sources.cpu_clusters.push_back(
          CpuClusterSource{policy.name, policy.related_cpus, policy.sysfs_path + "/scaling_cur_freq"});
    }
    if (sensors.cpu->cpufreq_absent) sources.notes.push_back("CPU frequency: " + *sensors.cpu->cpufreq_absent);
  }

  if (sensors.gpu.gpu) {
    sources.gpu_load_path = sensors.gpu.gpu->load_path;
    sources.gpu_freq_path = sensors.gpu.gpu->devfreq_path + "/cur_freq";
  } else if (sensors.gpu.absent) {
    sources.notes.push_back("GPU: " + *sensors.gpu.absent);
  }

  if (sensors.emc.access == EmcAccess::kReadable && sensors.emc.rate_path) {
    sources.emc_freq_path = sensors.emc.rate_path;
    for (const char* path : kEmcActivityPaths) {
      if (root.exists(path)) {
        sources.emc_activity_path = path;
        break;
      }
    }
  } else {
    sources.notes.push_back(fmt::format("EMC: {}{}", to_string(sensors.emc.access),
                                        sensors.emc.note ? " (" + *sensors.emc.note + ")" : ""));
  }

  for (const auto& zone : sensors.thermal.zones) {
    // Power-gated zones read -256 °C and PMIC-Die a constant: neither is a measurement.
    if (zone.fixed_reading) continue;
    sources.temperatures.push_back(TemperatureSource{zone.type, "/sys/class/thermal/" + zone.zone + "/temp"});
  }
  for (const auto& device : sensors.host.hwmon) {
    for (const auto& channel : device.channels) {
      if (channel.unit != "mC" || !channel.value) continue;
      const std::string name = device.name + "." + channel.label.value_or(channel.attribute);
      sources.temperatures.push_back(
          TemperatureSource{name, "/sys/class/hwmon/" + device.hwmon + "/" + channel.attribute + "_input"});
    }
  }
  for (const auto& zone : sensors.host.powercap) {
    if (!zone.energy_uj) {
      if (zone.note) sources.notes.push_back("powercap " + zone.zone + ": " + *zone.note);
      continue;
    }
    sources.energy_counters.push_back(EnergyCounterSource{
        zone.name.value_or(zone.zone), "/sys/class/powercap/" + zone.zone + "/energy_uj", zone.max_energy_range_uj});
  }
  return sources;
}

void add_nvml_sources(TelemetrySources& sources, const NvmlLibrary::Opened& nvml) {
  if (!nvml.library) {
    sources.notes.push_back("NVML: " + nvml.absent.value_or("absent"));
    return;
  }
  const auto count = nvml.library->device_count();
  if (!count.ok()) {
    sources.notes.push_back("NVML: " + count.error);
    return;
  }
  for (unsigned int index = 0; index < *count.value; ++index) {
    const auto handle = nvml.library->handle(index);
    const auto uuid = handle.ok() ? nvml.library->uuid(*handle.value) : NvmlResult<std::string>{};
    if (!uuid.ok()) {
      sources.notes.push_back(fmt::format("NVML GPU {}: {}", index, handle.ok() ? uuid.error : handle.error));
      continue;
    }
    sources.nvml_gpus.push_back(NvmlGpuSource{fmt::format("nvml{}", index), *uuid.value});
  }
  if (!sources.nvml_gpus.empty()) sources.nvml = nvml.library;
}

TelemetrySources discover_telemetry_sources(const sysfs::Root& root) {
  DiscoveredSensors sensors;
  std::vector<std::string> notes;
  // Each step on its own: a board that lacks one subsystem still gets the others.
  const auto attempt = [&](const char* what, auto&& step) {
    try {
      step();
    } catch (const std::exception& e) {
      notes.push_back(fmt::format("{} discovery failed: {}", what, e.what()));
    }
  };
  attempt("INA3221", [&] { sensors.power = discover_power_monitors(root); });
  attempt("CPU", [&] { sensors.cpu = discover_cpu_topology(root); });
  attempt("GPU", [&] { sensors.gpu = discover_gpu(root); });
  attempt("EMC", [&] { sensors.emc = discover_emc_clock(root); });
  attempt("thermal", [&] { sensors.thermal = discover_thermal_zones(root); });
  attempt("host sensors", [&] { sensors.host = discover_host_sensors(root); });
  TelemetrySources sources = telemetry_sources_from(root, sensors);
  if (root.is_host_root()) attempt("NVML", [&] { add_nvml_sources(sources, NvmlLibrary::open()); });
  sources.notes.insert(sources.notes.end(), notes.begin(), notes.end());
  return sources;
}

}  // namespace jetchar::jetson
