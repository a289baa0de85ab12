// The GPUs NVML lists, read once: identity, power (polled, and its averaged and instantaneous
// fields where the driver has them), the total energy counter, clocks,
// temperature, utilisation, memory, the power limit and its constraints, clock event (throttle)
// reasons and the clock tables the locked-clock knobs accept. Each value NVML refuses
// (NVML_ERROR_NOT_SUPPORTED on a Jetson's NVML or an older GPU, a missing symbol) is absent with
// NVML's reason, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jetson/nvml/nvml_library.h"

namespace jetchar::jetson {

/// One NVML reading: the value, or why there is none.
template <class T>
struct NvmlValue {
  std::optional<T> value;
  std::optional<std::string> absent;
};

struct NvmlGpu {
  unsigned int index = 0;
  std::string uuid;  ///< "GPU-…": names the GPU in the change journal (indexes may move between boots)
  NvmlValue<std::string> name;
  NvmlValue<std::uint64_t> power_mw;          ///< nvmlDeviceGetPowerUsage (averaged over 1 s on Ampere+ but GA100)
  NvmlValue<std::uint64_t> power_average_mw;  ///< field NVML_FI_DEV_POWER_AVERAGE: over 1 s (Ampere+ but GA100)
  NvmlValue<std::uint64_t> power_instant_mw;  ///< field NVML_FI_DEV_POWER_INSTANT: now (every architecture)
  NvmlValue<std::uint64_t> energy_mj;         ///< counter since the driver loaded (Volta+)
  NvmlValue<std::uint64_t> graphics_clock_mhz, sm_clock_mhz, memory_clock_mhz;
  NvmlValue<std::uint64_t> temperature_c;
  NvmlValue<std::uint64_t> gpu_util_pct, memory_util_pct;
  NvmlValue<std::uint64_t> memory_used_bytes, memory_total_bytes;
  NvmlValue<std::uint64_t> power_limit_mw, default_power_limit_mw, enforced_power_limit_mw;
  NvmlValue<std::pair<std::uint64_t, std::uint64_t>> power_limit_range_mw;  ///< min, max
  NvmlValue<std::vector<std::string>> clock_event_reasons;                  ///< "sw_power_cap", ...; empty = none
  NvmlValue<std::vector<unsigned int>> memory_clocks_mhz;                   ///< supported, highest first
  NvmlValue<std::vector<unsigned int>> graphics_clocks_mhz;                 ///< supported at the highest memory clock
};

struct NvmlDiscovery {
  std::string library;                ///< the file asked for
  std::optional<std::string> absent;  ///< NVML unusable: why
  std::optional<std::string> driver_version;
  std::vector<NvmlGpu> gpus;
  std::vector<std::string> notes;  ///< a GPU NVML counts but cannot open, ...
};

/// Names of the set bits of nvmlClocksEventReason* ("gpu_idle", "sw_power_cap", ...).
std::vector<std::string> clock_event_reason_names(unsigned long long reasons);

/// Reads every GPU of an opened library (or reports the library absent).
NvmlDiscovery discover_nvml(const NvmlLibrary::Opened& opened);
/// Opens the library (NvmlLibrary::library_path) and reads every GPU.
NvmlDiscovery discover_nvml(const std::optional<std::string>& library_path = std::nullopt);

}  // namespace jetchar::jetson
