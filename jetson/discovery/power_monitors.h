// The board's power monitors (reference §2.4):
//  - INA3221 under NVIDIA's R32 iio driver `ina3221x` (/sys/bus/i2c/drivers/ina3221x/<bus>-<addr>/
//    iio:deviceN/, channels 0-2: rail_name_N, in_voltageN_input mV, in_currentN_input mA,
//    in_powerN_input mW; limits carry unit suffixes such as "1000 ma");
//  - INA3221 under the upstream hwmon driver `ina3221` (R34+; …/hwmon/hwmonN/ at any N, channels
//    1-3: inN_label, inN_input mV, currN_input mA, no power file; label "NC" = not connected);
//  - the INA238 on AGX Thor's carrier board, upstream hwmon `ina238` (drivers/hwmon/ina238.c:
//    in1_input bus mV, curr1_input mA, power1_input µW, no label), which measures the whole
//    board input; tegrastats calls it VIN.
// Also decides which rail is the board input (VDD_IN, POM_5V_IN, the INA238's VIN); AGX Xavier and
// AGX Orin have none, so their total is the sum of the module rails, labelled as such.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

enum class PowerMonitorDriver { kIna3221Iio, kIna3221Hwmon, kIna238Hwmon };
std::string_view to_string(PowerMonitorDriver driver);

struct PowerRail {
  std::string name;                       ///< label ("VDD_IN"); "in2" when the driver hides an unset label
  int channel = 0;                        ///< driver numbering: 0-2 (iio) or 1-3 (hwmon)
  bool connected = true;                  ///< false for "NC" labels and disabled channels
  std::string voltage_path;               ///< mV
  std::string current_path;               ///< mA
  std::optional<std::string> power_path;  ///< iio in_powerN_input (mW) or INA238 power1_input (µW)
  double power_mw_per_unit = 1.0;         ///< 1 for mW files, 0.001 for the INA238's µW
  std::optional<std::int64_t> shunt_resistor_uohm;
  std::optional<std::int64_t> warn_current_limit_ma;
  std::optional<std::int64_t> crit_current_limit_ma;
  // One reading taken at discovery time (absent for unconnected rails).
  std::optional<std::int64_t> voltage_mv;
  std::optional<std::int64_t> current_ma;
  std::optional<std::int64_t> power_mw;  ///< in_powerN_input, or mV x mA / 1000
};

struct PowerMonitorDevice {
  PowerMonitorDriver driver = PowerMonitorDriver::kIna3221Hwmon;
  std::string i2c_device;  ///< "1-0040"
  std::string sysfs_path;  ///< the folder holding the channel files
  std::vector<PowerRail> rails;
  std::optional<std::int64_t> samples;             ///< hwmon averaging count
  std::optional<std::int64_t> update_interval_ms;  ///< hwmon conversion interval
  std::optional<std::int64_t> running_mode;        ///< iio: 0 triggered, 1 continuous
};

struct PowerMonitors {
  std::vector<PowerMonitorDevice> devices;
  /// The rail that measures the whole board input, when the board has one.
  std::optional<std::string> board_input_rail;
  /// "board input rail" or "sum of module rails"; nullopt when no rails exist.
  std::optional<std::string> total_kind;
  /// Rails summed for the total when there is no board input rail (sub-rails left out).
  std::vector<std::string> summed_rails;
  /// Connected rails fed by another connected rail (see sub_rail_feeder): never summed.
  std::vector<std::string> sub_rails;
  std::optional<std::string> absent;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

PowerMonitors discover_power_monitors(const sysfs::Root& root);

/// The rail that feeds `rail` on the boards that have both (AGX Orin: VDDQ_VDD2_1V8AO is supplied
/// from VIN_SYS_5V0, reference §2.4 / energymon's rail tables). Adding such a sub-rail to a sum
/// that already holds its feeder would count its power twice.
std::optional<std::string_view> sub_rail_feeder(std::string_view rail);

}  // namespace jetchar::jetson
