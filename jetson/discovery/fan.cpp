#include "jetson/discovery/fan.h"

#include "jetson/discovery/sysfs_natural_sort.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

std::vector<std::string> hwmon_named(const sysfs::Root& root, std::string_view name) {
  std::vector<std::string> dirs;
  for (const auto& name_file : natural_sorted(root.glob("/sys/class/hwmon/hwmon*/name"))) {
    if (sysfs::try_read_string(root, name_file) == name) {
      dirs.push_back(root.canonical(name_file.substr(0, name_file.rfind('/'))));
    }
  }
  return dirs;
}

}  // namespace

FanDiscovery discover_fans(const sysfs::Root& root) {
  FanDiscovery result;
  AttributeReader read(root, result.unavailable);
  const std::string legacy = "/sys/devices/pwm-fan";
  if (root.exists(legacy + "/target_pwm")) {
    Fan fan;
    fan.interface = "pwm-fan (R32)";
    fan.pwm_path = legacy + "/target_pwm";
    fan.pwm = read.integer(fan.pwm_path, "fan target_pwm");
    for (const char* rpm : {"/rpm_measured", "/rpm"}) {
      if (!fan.rpm_path && root.exists(legacy + rpm)) fan.rpm_path = legacy + rpm;
    }
    if (fan.rpm_path) fan.rpm = read.integer(*fan.rpm_path, "fan rpm");
    if (auto control = read.integer(legacy + "/temp_control", "fan temp_control")) fan.kernel_control = *control != 0;
    result.fans.push_back(std::move(fan));
  }

  const auto tachs = hwmon_named(root, "pwm_tach");
  size_t tach_index = 0;
  for (const auto& dir : hwmon_named(root, "pwmfan")) {
    for (const auto& pwm : natural_sorted(root.glob(dir + "/pwm[0-9]"))) {
      Fan fan;
      fan.interface = "hwmon pwmfan";
      fan.pwm_path = pwm;
      fan.pwm = read.integer(pwm, "fan " + pwm.substr(pwm.rfind('/') + 1));
      fan.pwm_enable = read.integer(pwm + "_enable", "fan " + pwm.substr(pwm.rfind('/') + 1) + "_enable");
      // Tachometers pair with fans in order; boards with one fan have one pwm_tach.
      if (tach_index < tachs.size()) {
        for (const char* rpm : {"/rpm", "/fan1_input"}) {
          if (!fan.rpm_path && root.exists(tachs[tach_index] + rpm)) fan.rpm_path = tachs[tach_index] + rpm;
        }
        ++tach_index;
      }
      if (fan.rpm_path) fan.rpm = read.integer(*fan.rpm_path, "fan rpm");
      result.fans.push_back(std::move(fan));
    }
  }
  if (result.fans.empty()) result.absent = "no fan control (no /sys/devices/pwm-fan, no hwmon named pwmfan)";
  return result;
}

}  // namespace jetchar::jetson
