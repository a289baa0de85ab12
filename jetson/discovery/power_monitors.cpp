#include "jetson/discovery/power_monitors.h"

#include <algorithm>
#include <cerrno>
#include <set>

#include "jetson/discovery/sysfs_natural_sort.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

// Whole-board input rails by name (reference §2.4 "Total" column; VIN is the INA238's).
constexpr std::string_view kBoardInputRails[] = {"VDD_IN", "POM_5V_IN", "VIN"};
// The INA238 driver has no label attribute: its one rail takes the name tegrastats gives it.
constexpr std::string_view kIna238Rail = "VIN";

struct SubRail {
  std::string_view rail;
  std::string_view fed_by;
};
// AGX Orin: VDDQ_VDD2_1V8AO is supplied from VIN_SYS_5V0; AGX Thor: VIN_SYS_5V0 is supplied from
// the carrier's input, which the INA238 measures (jtop PR #900, the Thor forum thread).
constexpr SubRail kSubRails[] = {{"VDDQ_VDD2_1V8AO", "VIN_SYS_5V0"}, {"VIN_SYS_5V0", "VIN"}};

// What a failing read means (docs/kernel-formats.md, INA3221 rows).
constexpr ErrnoMeaning kIioErrors[] = {
    {EAGAIN, "the ina3221x driver gave up waiting for a conversion"},
    {EIO, "the I2C transfer to the INA3221 failed"},
};
constexpr ErrnoMeaning kHwmonErrors[] = {
    {ENODATA, "the channel is disabled"},
    {EIO, "the I2C transfer to the INA3221 failed"},
};

std::string last_component(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// iio: /sys/bus/i2c/drivers/ina3221x/<bus>-<addr>/iio:deviceN (or iio_device).
PowerMonitorDevice read_iio_device(AttributeReader& read, const std::string& dir, const std::string& i2c_device) {
  const sysfs::Root& root = read.root();
  PowerMonitorDevice device;
  device.driver = PowerMonitorDriver::kIna3221Iio;
  device.i2c_device = i2c_device;
  device.sysfs_path = dir;
  device.running_mode = read.integer(dir + "/running_mode", i2c_device + " running_mode", kIioErrors);
  for (int n = 0; n < 3; ++n) {
    const std::string name_path = dir + "/rail_name_" + std::to_string(n);
    if (!root.exists(name_path)) continue;
    const std::string channel = i2c_device + " channel " + std::to_string(n);
    PowerRail rail;
    rail.channel = n;
    const auto name = read.text(name_path, channel + " rail_name");
    if (!name) continue;
    rail.name = *name;
    rail.connected = !rail.name.empty() && rail.name != "NC";
    rail.voltage_path = dir + "/in_voltage" + std::to_string(n) + "_input";
    rail.current_path = dir + "/in_current" + std::to_string(n) + "_input";
    const std::string power = dir + "/in_power" + std::to_string(n) + "_input";
    if (root.exists(power)) rail.power_path = power;
    rail.warn_current_limit_ma = read.integer(dir + "/warn_current_limit_" + std::to_string(n),
                                              rail.name + " warn_current_limit", kIioErrors, true);
    rail.crit_current_limit_ma = read.integer(dir + "/crit_current_limit_" + std::to_string(n),
                                              rail.name + " crit_current_limit", kIioErrors, true);
    if (rail.connected) {
      rail.voltage_mv = read.integer(rail.voltage_path, rail.name + " voltage", kIioErrors);
      rail.current_ma = read.integer(rail.current_path, rail.name + " current", kIioErrors);
      if (rail.power_path) rail.power_mw = read.integer(*rail.power_path, rail.name + " power", kIioErrors);
      if (!rail.power_mw && rail.voltage_mv && rail.current_ma)
        rail.power_mw = *rail.voltage_mv * *rail.current_ma / 1000;
    }
    device.rails.push_back(std::move(rail));
  }
  return device;
}

// hwmon: a hwmonN folder whose `name` is ina3221.
PowerMonitorDevice read_hwmon_device(AttributeReader& read, const std::string& dir) {
  const sysfs::Root& root = read.root();
  PowerMonitorDevice device;
  device.driver = PowerMonitorDriver::kIna3221Hwmon;
  device.sysfs_path = dir;
  // …/<bus>-<addr>/hwmon/hwmonN
  const std::string parent = dir.substr(0, dir.find_last_of('/'));
  device.i2c_device = last_component(parent.substr(0, parent.find_last_of('/')));
  device.samples = read.integer(dir + "/samples", device.i2c_device + " samples", kHwmonErrors);
  device.update_interval_ms =
      read.integer(dir + "/update_interval", device.i2c_device + " update_interval", kHwmonErrors);
  for (int n = 1; n <= 3; ++n) {
    const std::string in = dir + "/in" + std::to_string(n);
    if (!root.exists(in + "_input") && !root.exists(in + "_label")) continue;
    const std::string channel = device.i2c_device + " in" + std::to_string(n);
    PowerRail rail;
    rail.channel = n;
    rail.name = read.text(in + "_label", channel + " label", kHwmonErrors).value_or("in" + std::to_string(n));
    rail.connected = rail.name != "NC";
    if (auto enabled = read.integer(in + "_enable", channel + " enable", kHwmonErrors); enabled && *enabled == 0) {
      rail.connected = false;
    }
    rail.voltage_path = in + "_input";
    rail.current_path = dir + "/curr" + std::to_string(n) + "_input";
    rail.shunt_resistor_uohm =
        read.integer(dir + "/shunt" + std::to_string(n) + "_resistor", channel + " shunt_resistor", kHwmonErrors);
    rail.warn_current_limit_ma =
        read.integer(dir + "/curr" + std::to_string(n) + "_max", channel + " curr_max", kHwmonErrors);
    rail.crit_current_limit_ma =
        read.integer(dir + "/curr" + std::to_string(n) + "_crit", channel + " curr_crit", kHwmonErrors);
    if (rail.connected) {
      rail.voltage_mv = read.integer(rail.voltage_path, rail.name + " voltage", kHwmonErrors);
      rail.current_ma = read.integer(rail.current_path, rail.name + " current", kHwmonErrors);
      if (rail.voltage_mv && rail.current_ma) rail.power_mw = *rail.voltage_mv * *rail.current_ma / 1000;
    }
    device.rails.push_back(std::move(rail));
  }
  return device;
}

// hwmon `ina238` (drivers/hwmon/ina238.c): in0 is the shunt voltage, in1 the bus voltage (mV),
// curr1 the current (mA, signed), power1 the power the chip computes (µW, its 24-bit register).
PowerMonitorDevice read_ina238_device(AttributeReader& read, const std::string& dir) {
  PowerMonitorDevice device;
  device.driver = PowerMonitorDriver::kIna238Hwmon;
  device.sysfs_path = dir;
  const std::string parent = dir.substr(0, dir.find_last_of('/'));
  device.i2c_device = last_component(parent.substr(0, parent.find_last_of('/')));
  PowerRail rail;
  rail.name = std::string(kIna238Rail);
  rail.channel = 1;
  rail.voltage_path = dir + "/in1_input";
  rail.current_path = dir + "/curr1_input";
  if (read.root().exists(dir + "/power1_input")) {
    rail.power_path = dir + "/power1_input";
    rail.power_mw_per_unit = 0.001;
  }
  rail.voltage_mv = read.integer(rail.voltage_path, "VIN voltage", kHwmonErrors);
  rail.current_ma = read.integer(rail.current_path, "VIN current", kHwmonErrors);
  if (rail.power_path) {
    if (const auto uw = read.integer(*rail.power_path, "VIN power", kHwmonErrors)) rail.power_mw = *uw / 1000;
  }
  if (!rail.power_mw && rail.voltage_mv && rail.current_ma) rail.power_mw = *rail.voltage_mv * *rail.current_ma / 1000;
  device.rails.push_back(std::move(rail));
  return device;
}

// Canonical hwmonN folders whose `name` is `name`, found through the class folder and through the
// i2c driver folder (hwmon indexes change between boots).
std::vector<std::string> hwmon_dirs_named(const sysfs::Root& root, std::string_view name) {
  std::vector<std::string> dirs;
  for (const auto& name_file : root.glob("/sys/class/hwmon/hwmon*/name")) {
    if (sysfs::try_read_string(root, name_file) == name) {
      dirs.push_back(root.canonical(name_file.substr(0, name_file.find_last_of('/'))));
    }
  }
  for (const auto& dir : root.glob("/sys/bus/i2c/drivers/" + std::string(name) + "/*-*/hwmon/hwmon*")) {
    dirs.push_back(root.canonical(dir));
  }
  return natural_sorted(dirs);
}

}  // namespace

std::optional<std::string_view> sub_rail_feeder(std::string_view rail) {
  for (const auto& sub : kSubRails) {
    if (sub.rail == rail) return sub.fed_by;
  }
  return std::nullopt;
}

std::string_view to_string(PowerMonitorDriver driver) {
  switch (driver) {
    case PowerMonitorDriver::kIna3221Iio: return "ina3221x (iio)";
    case PowerMonitorDriver::kIna3221Hwmon: return "ina3221 (hwmon)";
    case PowerMonitorDriver::kIna238Hwmon: return "ina238 (hwmon)";
  }
  return "?";
}

PowerMonitors discover_power_monitors(const sysfs::Root& root) {
  PowerMonitors monitors;
  AttributeReader read(root, monitors.unavailable);
  std::set<std::string> seen;

  for (const auto& i2c_dir : natural_sorted(root.glob("/sys/bus/i2c/drivers/ina3221x/*-*"))) {
    for (const auto& pattern : {"/iio:device*", "/iio_device"}) {
      for (const auto& dir : root.glob(i2c_dir + pattern)) {
        const std::string canonical = root.canonical(dir);
        if (!seen.insert(canonical).second) continue;
        monitors.devices.push_back(read_iio_device(read, dir, last_component(i2c_dir)));
      }
    }
  }
  for (const auto& dir : hwmon_dirs_named(root, "ina3221")) {
    if (!seen.insert(dir).second) continue;
    monitors.devices.push_back(read_hwmon_device(read, dir));
  }
  for (const auto& dir : hwmon_dirs_named(root, "ina238")) {
    if (!seen.insert(dir).second) continue;
    monitors.devices.push_back(read_ina238_device(read, dir));
  }
  std::stable_sort(monitors.devices.begin(), monitors.devices.end(),
                   [](const auto& a, const auto& b) { return a.i2c_device < b.i2c_device; });

  if (monitors.devices.empty()) {
    monitors.absent = "no INA3221 or INA238 (no ina3221x iio device, no hwmon named ina3221 or ina238)";
    return monitors;
  }
  std::set<std::string> connected;
  for (const auto& device : monitors.devices) {
    for (const auto& rail : device.rails) {
      if (rail.connected) connected.insert(rail.name);
    }
  }
  for (const auto& device : monitors.devices) {
    for (const auto& rail : device.rails) {
      if (!rail.connected) continue;
      if (const auto feeder = sub_rail_feeder(rail.name); feeder && connected.count(std::string(*feeder)) > 0) {
        monitors.sub_rails.push_back(rail.name);
        continue;
      }
      if (!monitors.board_input_rail && std::find(std::begin(kBoardInputRails), std::end(kBoardInputRails),
                                                  rail.name) != std::end(kBoardInputRails)) {
        monitors.board_input_rail = rail.name;
      }
      monitors.summed_rails.push_back(rail.name);
    }
  }
  if (monitors.board_input_rail) {
    monitors.total_kind = "board input rail";
    monitors.summed_rails.clear();
  } else if (!monitors.summed_rails.empty()) {
    monitors.total_kind = "sum of module rails";
  }
  return monitors;
}

}  // namespace jetchar::jetson
