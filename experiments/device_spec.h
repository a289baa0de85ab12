// The spec's DeviceSpec in the terms of the board-control layer.
#pragma once

#include "jetson/control/power_mode.h"
#include "jetson/nvml/nvml_control.h"
#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

/// True when the spec asks for any custom setting (cores, a frequency, DVFS, fan, idle states).
bool has_custom_settings(const proto::DeviceSpec& device);
/// The custom power mode the spec asks for; frequencies keep the decimals the user wrote.
jetson::CustomPowerMode custom_power_mode(const proto::DeviceSpec& device);
/// True when the spec asks for an NVML knob (power limit, locked clocks).
bool has_nvml_settings(const proto::DeviceSpec& device);
/// The NVML knobs the spec asks for. Throws std::invalid_argument for a malformed clock range.
jetson::NvmlSettings nvml_settings(const proto::DeviceSpec& device);

}  // namespace jetchar::experiments
