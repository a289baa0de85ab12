#include "jetson/discovery/host_sensors.h"

#include <algorithm>
#include <cerrno>

#include "jetson/discovery/sysfs_natural_sort.h"
#include "sysfs/attribute.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

// hwmon devices described by their own discovery (jetson/power_monitors, jetson/fan).
constexpr std::string_view kOwnedElsewhere[] = {"ina3221", "ina238", "pwmfan", "pwm_tach"};

struct ChannelKind {
  std::string_view prefix;
  std::string_view unit;
};
constexpr ChannelKind kChannelKinds[] = {
    {"temp", "mC"}, {"in", "mV"}, {"curr", "mA"}, {"power", "uW"}, {"energy", "uJ"}, {"fan", "rpm"},
};

std::vector<HwmonChannel> read_channels(const sysfs::Root& root, const std::string& dir) {
  std::vector<HwmonChannel> channels;
  for (const auto& file : natural_sorted(root.glob(dir + "/*_input"))) {
    const std::string base = file.substr(file.rfind('/') + 1, file.size() - file.rfind('/') - 1 - 6);
    const auto kind = std::find_if(std::begin(kChannelKinds), std::end(kChannelKinds), [&](const ChannelKind& k) {
      return base.rfind(k.prefix, 0) == 0 && base.size() > k.prefix.size() &&
             std::isdigit(static_cast<unsigned char>(base[k.prefix.size()]));
    });
    if (kind == std::end(kChannelKinds)) continue;
    HwmonChannel channel;
    channel.attribute = base;
    channel.unit = std::string(kind->unit);
    channel.label = sysfs::try_read_string(root, dir + "/" + base + "_label");
    channel.value = sysfs::try_read_int(root, file);
    channels.push_back(std::move(channel));
  }
  return channels;
}

}  // namespace

HostSensors discover_host_sensors(const sysfs::Root& root) {
  HostSensors sensors;

  const auto hwmon_dirs = natural_sorted(root.glob("/sys/class/hwmon/hwmon*"));
  for (const auto& dir : hwmon_dirs) {
    HwmonDevice device;
    device.hwmon = dir.substr(dir.rfind('/') + 1);
    device.name = sysfs::try_read_string(root, dir + "/name").value_or("");
    if (std::find(std::begin(kOwnedElsewhere), std::end(kOwnedElsewhere), device.name) != std::end(kOwnedElsewhere)) {
      continue;
    }
    device.channels = read_channels(root, dir);
    sensors.hwmon.push_back(std::move(device));
  }
  if (hwmon_dirs.empty()) {
    sensors.hwmon_absent = "no /sys/class/hwmon devices";
  } else if (sensors.hwmon.empty()) {
    sensors.hwmon_absent = "no hwmon devices besides the INA3221 and fan ones listed above";
  }

  for (const auto& dir : natural_sorted(root.glob("/sys/class/powercap/*"))) {
    PowercapZone zone;
    zone.zone = dir.substr(dir.rfind('/') + 1);
    if (!root.exists(dir + "/energy_uj") && !root.exists(dir + "/name")) continue;  // control types
    zone.name = sysfs::try_read_string(root, dir + "/name");
    zone.max_energy_range_uj = sysfs::try_read_int(root, dir + "/max_energy_range_uj");
    if (root.exists(dir + "/energy_uj")) {
      try {
        zone.energy_uj = sysfs::read_int(root, dir + "/energy_uj");
      } catch (const sysfs::IoError& e) {
        if (e.error_number() != EACCES && e.error_number() != EPERM) throw;
        zone.note = "energy_uj needs root";
      }
    } else {
      zone.note = "no energy_uj counter";
    }
    sensors.powercap.push_back(std::move(zone));
  }
  if (sensors.powercap.empty()) {
    sensors.powercap_absent = root.exists("/sys/class/powercap")
                                  ? "no powercap zones (no RAPL driver for this CPU)"
                                  : "no /sys/class/powercap (no RAPL or other power-capping driver)";
  }

  for (const auto& gpu : root.glob("/proc/driver/nvidia/gpus/*")) {
    sensors.nvidia_gpus.push_back(gpu.substr(gpu.rfind('/') + 1));
  }
  if (sensors.nvidia_gpus.empty())
    sensors.nvidia_gpus_absent = "no NVIDIA discrete GPU driver (/proc/driver/nvidia/gpus)";
  return sensors;
}

}  // namespace jetchar::jetson
