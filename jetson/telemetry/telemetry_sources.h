// What the telemetry sampler reads: a plain list of kernel files with their kinds and units,
// independent of how they were found. Board discovery (INA3221, CPU topology, GPU, EMC, thermal,
// host sensors) is converted into this (jetson/telemetry/telemetry_discovery.h); tests write it by hand.
// Paths are kernel paths, resolved through a sysfs::Root by the sampler.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jetson/energy/power_trace.h"

namespace jetchar::jetson {

class NvmlLibrary;

/// One power monitor rail. Power comes from `power_path` when present (iio `in_powerN_input` in
/// mW, the INA238's `power1_input` in µW), otherwise V × I (the INA3221 hwmon driver has none).
struct RailSource {
  std::string name;
  energy::RailRole role = energy::RailRole::kModule;
  std::string voltage_path;  ///< mV
  std::string current_path;  ///< mA
  std::optional<std::string> power_path;
  /// The monitor's conversion interval, to tell a repeated reading from a constant signal.
  std::optional<std::int64_t> update_interval_ns;
  double power_mw_per_unit = 1.0;  ///< of power_path: 1 for a file in mW, 0.001 for one in µW
};

/// A cumulative energy counter (powercap/RAPL `energy_uj`); power is its rate of change.
struct EnergyCounterSource {
  std::string name;
  std::string energy_path;                          ///< µJ
  std::optional<std::int64_t> max_energy_range_uj;  ///< wrap-around point
};

struct CpuClusterSource {
  std::string name;  ///< "policy0"
  std::vector<int> cpus;
  std::string cur_freq_path;  ///< kHz (scaling_cur_freq)
};

struct TemperatureSource {
  std::string name;  ///< zone type ("CPU-therm") or hwmon label
  std::string path;  ///< m°C
};

/// A GPU read through NVML (jetson/nvml/): not a file but library calls on its handle. Its power
/// is polled (nvmlDeviceGetPowerUsage) and, on Volta and newer, derived from the total energy
/// counter as well; with a counter the polled channel is a sub-rail (the same energy measured
/// twice must not count twice in a total). Clocks, utilisation, temperature and memory are
/// sub-rate fields.
struct NvmlGpuSource {
  std::string name;  ///< "nvml0": fields nvml0_power.power_mw, nvml0_energy.power_mw, nvml0.sm_clock_mhz, ...
  std::string uuid;  ///< the handle is looked up by UUID (NVML's indexes may change)
};

/// Power monitor settings recorded at the start of sampling (DESIGN: logged with every run).
struct PowerMonitorSettings {
  std::string device;  ///< "1-0040"
  std::string driver;  ///< "hwmon" / "iio"
  std::optional<std::int64_t> samples;
  std::optional<std::int64_t> update_interval_ms;
  std::optional<std::int64_t> running_mode;  ///< iio: 0 triggered, 1 continuous
};

struct TelemetrySources {
  std::vector<RailSource> rails;
  std::vector<EnergyCounterSource> energy_counters;
  /// Per-core utilisation from /proc/stat for these CPUs (empty = every cpuN /proc/stat lists).
  bool cpu_utilization = true;
  std::vector<int> cpus;
  std::vector<CpuClusterSource> cpu_clusters;
  std::optional<std::string> gpu_load_path;      ///< per-mille
  std::optional<std::string> gpu_freq_path;      ///< Hz
  std::optional<std::string> emc_freq_path;      ///< Hz
  std::optional<std::string> emc_activity_path;  ///< actmon mc_all (jtop: util % = mc_all / rate_kHz × 100)
  bool memory = true;                            ///< /proc/meminfo MemTotal − MemAvailable
  std::vector<TemperatureSource> temperatures;
  std::vector<PowerMonitorSettings> power_monitors;
  /// The opened NVML and its GPUs (empty when NVML is absent or not probed: a simulated board).
  std::shared_ptr<const NvmlLibrary> nvml;
  std::vector<NvmlGpuSource> nvml_gpus;
  /// Why things are missing ("EMC: debugfs needs root"), carried into the monitor's header.
  std::vector<std::string> notes;
};

}  // namespace jetchar::jetson
