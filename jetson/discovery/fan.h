// Fan control and tachometer (reference §2.5): R32 `pwm-fan` platform device (target_pwm 0-255,
// rpm_measured, temp_control); R35+ hwmon named `pwmfan` (pwm1 0-255, pwm1_enable) with the tach
// in a separate hwmon named `pwm_tach` (rpm). Found by hwmon name, never by hwmon index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct Fan {
  std::string interface;  ///< "pwm-fan (R32)" or "hwmon pwmfan"
  std::string pwm_path;   ///< 0-255
  std::optional<std::int64_t> pwm;
  std::optional<std::string> rpm_path;
  std::optional<std::int64_t> rpm;
  /// R32 temp_control: true = kernel thermal control drives the fan.
  std::optional<bool> kernel_control;
  std::optional<std::int64_t> pwm_enable;  ///< hwmon pwm1_enable
};

struct FanDiscovery {
  std::vector<Fan> fans;
  std::optional<std::string> absent;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

FanDiscovery discover_fans(const sysfs::Root& root);

}  // namespace jetchar::jetson
