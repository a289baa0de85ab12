#include "jetson/nvml/nvml_gpus.h"

#include <fmt/format.h>
#include <algorithm>
#include <functional>

namespace jetchar::jetson {

using namespace nvml_abi;

namespace {

template <class T, class U, class Convert>
NvmlValue<T> take(const NvmlResult<U>& result, Convert&& convert) {
  NvmlValue<T> value;
  if (result.ok()) value.value = convert(*result.value);
  else value.absent = result.error;
  return value;
}

template <class U>
NvmlValue<std::uint64_t> take_u64(const NvmlResult<U>& result) {
  return take<std::uint64_t>(result, [](const U& v) { return static_cast<std::uint64_t>(v); });
}

}  // namespace

std::vector<std::string> clock_event_reason_names(unsigned long long reasons) {
  static const std::pair<unsigned long long, const char*> kNames[] = {
      {kReasonGpuIdle, "gpu_idle"},
      {kReasonApplicationsClocksSetting, "applications_clocks_setting"},
      {kReasonSwPowerCap, "sw_power_cap"},
      {kReasonHwSlowdown, "hw_slowdown"},
      {kReasonSyncBoost, "sync_boost"},
      {kReasonSwThermalSlowdown, "sw_thermal_slowdown"},
      {kReasonHwThermalSlowdown, "hw_thermal_slowdown"},
      {kReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {kReasonDisplayClockSetting, "display_clock_setting"}};
  std::vector<std::string> names;
  unsigned long long known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if ((reasons & bit) != 0) names.emplace_back(name);
  }
  if ((reasons & ~known) != 0) names.push_back(fmt::format("0x{:x}", reasons & ~known));
  return names;
}

NvmlDiscovery discover_nvml(const NvmlLibrary::Opened& opened) {
  NvmlDiscovery out;
  out.library = opened.path;
  if (!opened.library) {
    out.absent = opened.absent.value_or("NVML is absent");
    return out;
  }
  const NvmlLibrary& nvml = *opened.library;
  if (auto version = nvml.driver_version(); version.ok()) out.driver_version = *version.value;
  const auto count = nvml.device_count();
  if (!count.ok()) {
    out.absent = count.error;
    return out;
  }
  if (*count.value == 0) {
    out.absent = "NVML lists no GPU";
    return out;
  }
  for (unsigned int index = 0; index < *count.value; ++index) {
    const auto handle = nvml.handle(index);
    if (!handle.ok()) {
      out.notes.push_back(fmt::format("GPU {}: {}", index, handle.error));
      continue;
    }
    const nvmlDevice_t device = *handle.value;
    NvmlGpu gpu;
    gpu.index = index;
    const auto uuid = nvml.uuid(device);
    if (!uuid.ok()) {
      out.notes.push_back(fmt::format("GPU {}: {}", index, uuid.error));
      continue;
    }
    gpu.uuid = *uuid.value;
    gpu.name = take<std::string>(nvml.name(device), [](const std::string& s) { return s; });
    gpu.power_mw = take_u64(nvml.power_usage_mw(device));
    gpu.power_average_mw = take_u64(nvml.power_field_mw(device, NVML_FI_DEV_POWER_AVERAGE));
    gpu.power_instant_mw = take_u64(nvml.power_field_mw(device, NVML_FI_DEV_POWER_INSTANT));
    gpu.energy_mj = take_u64(nvml.total_energy_mj(device));
    gpu.graphics_clock_mhz = take_u64(nvml.clock_mhz(device, NVML_CLOCK_GRAPHICS));
    gpu.sm_clock_mhz = take_u64(nvml.clock_mhz(device, NVML_CLOCK_SM));
    gpu.memory_clock_mhz = take_u64(nvml.clock_mhz(device, NVML_CLOCK_MEM));
    gpu.temperature_c = take_u64(nvml.temperature_c(device));
    const auto utilization = nvml.utilization(device);
    gpu.gpu_util_pct =
        take<std::uint64_t>(utilization, [](const nvmlUtilization_t& u) { return std::uint64_t{u.gpu}; });
    gpu.memory_util_pct =
        take<std::uint64_t>(utilization, [](const nvmlUtilization_t& u) { return std::uint64_t{u.memory}; });
    const auto memory = nvml.memory(device);
    gpu.memory_used_bytes = take<std::uint64_t>(memory, [](const nvmlMemory_t& m) { return std::uint64_t{m.used}; });
    gpu.memory_total_bytes = take<std::uint64_t>(memory, [](const nvmlMemory_t& m) { return std::uint64_t{m.total}; });
    gpu.power_limit_mw = take_u64(nvml.power_limit_mw(device));
    gpu.default_power_limit_mw = take_u64(nvml.default_power_limit_mw(device));
    gpu.enforced_power_limit_mw = take_u64(nvml.enforced_power_limit_mw(device));
    gpu.power_limit_range_mw = take<std::pair<std::uint64_t, std::uint64_t>>(
        nvml.power_limit_constraints_mw(device), [](const std::pair<unsigned int, unsigned int>& r) {
          return std::pair<std::uint64_t, std::uint64_t>{r.first, r.second};
        });
    gpu.clock_event_reasons =
        take<std::vector<std::string>>(nvml.clock_event_reasons(device), clock_event_reason_names);
    const auto sorted_desc = [](std::vector<unsigned int> clocks) {
      std::sort(clocks.begin(), clocks.end(), std::greater<>());
      return clocks;
    };
    gpu.memory_clocks_mhz = take<std::vector<unsigned int>>(nvml.supported_memory_clocks_mhz(device), sorted_desc);
    if (gpu.memory_clocks_mhz.value && !gpu.memory_clocks_mhz.value->empty()) {
      gpu.graphics_clocks_mhz = take<std::vector<unsigned int>>(
          nvml.supported_graphics_clocks_mhz(device, gpu.memory_clocks_mhz.value->front()), sorted_desc);
    } else {
      gpu.graphics_clocks_mhz.absent = "no memory clock table to ask graphics clocks for";
    }
    out.gpus.push_back(std::move(gpu));
  }
  return out;
}

NvmlDiscovery discover_nvml(const std::optional<std::string>& library_path) {
  return discover_nvml(NvmlLibrary::open(library_path));
}

}  // namespace jetchar::jetson
