#include "experiments/device_spec.h"

#include <fmt/format.h>

namespace jetchar::experiments {
namespace {

// 1420.8 -> "1420.8" (the board's frequency tables are matched on this text).
std::string mhz_text(double mhz) { return fmt::format("{}", mhz); }

}  // namespace

bool has_custom_settings(const proto::DeviceSpec& d) {
  return d.has_cpu_cores() || d.has_cpu_freq_mhz() || d.has_gpu_freq_mhz() || d.has_emc_freq_mhz() ||
         d.dvfs() != proto::SWITCH_UNSPECIFIED || d.fan() != proto::FAN_UNSPECIFIED || d.disable_cpu_idle();
}

jetson::CustomPowerMode custom_power_mode(const proto::DeviceSpec& d) {
  jetson::CustomPowerMode mode;
  if (d.has_cpu_cores()) mode.cpu_cores = static_cast<int>(d.cpu_cores());
  if (d.has_cpu_freq_mhz()) mode.cpu_freq_mhz = mhz_text(d.cpu_freq_mhz());
  if (d.has_gpu_freq_mhz()) mode.gpu_freq_mhz = mhz_text(d.gpu_freq_mhz());
  if (d.has_emc_freq_mhz()) mode.emc_freq_mhz = mhz_text(d.emc_freq_mhz());
  if (d.dvfs() == proto::ON) mode.dvfs = jetson::DvfsSetting::kOn;
  if (d.dvfs() == proto::OFF) mode.dvfs = jetson::DvfsSetting::kOff;
  if (d.fan() == proto::FAN_MAX) mode.fan = jetson::FanSetting::kMax;
  if (d.fan() == proto::FAN_DEFAULT) mode.fan = jetson::FanSetting::kDefault;
  mode.disable_cpu_idle = d.disable_cpu_idle();
  return mode;
}

bool has_nvml_settings(const proto::DeviceSpec& d) {
  return d.has_gpu_power_limit_w() || !d.gpu_locked_clocks_mhz().empty() || !d.memory_locked_clocks_mhz().empty();
}

jetson::NvmlSettings nvml_settings(const proto::DeviceSpec& d) {
  jetson::NvmlSettings settings;
  settings.gpu_index = d.nvml_gpu();
  if (d.has_gpu_power_limit_w()) settings.power_limit_w = d.gpu_power_limit_w();
  if (!d.gpu_locked_clocks_mhz().empty()) {
    settings.gpu_locked_clocks_mhz =
        jetson::parse_clock_range(d.gpu_locked_clocks_mhz(), "device.gpu_locked_clocks_mhz");
  }
  if (!d.memory_locked_clocks_mhz().empty()) {
    settings.memory_locked_clocks_mhz =
        jetson::parse_clock_range(d.memory_locked_clocks_mhz(), "device.memory_locked_clocks_mhz");
  }
  return settings;
}

}  // namespace jetchar::experiments
