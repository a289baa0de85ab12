// Sensors of a generic Linux machine (and the rest of a Jetson's): hwmon devices other than the
// ones jetson/ina3221 and jetson/fan own, powercap zones (Intel RAPL: energy_uj, readable only by
// root since CVE-2020-8694), and whether an NVIDIA discrete GPU driver is loaded (NVML would
// serve it). Absent things are reported absent, never as zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::jetson {

struct HwmonChannel {
  std::string attribute;  ///< "temp1", "in0", "fan2", "power1", "curr1"
  std::optional<std::string> label;
  std::string unit;  ///< "mC", "mV", "mA", "uW", "rpm" (the hwmon ABI units)
  std::optional<std::int64_t> value;
};

struct HwmonDevice {
  std::string hwmon;  ///< "hwmon2"
  std::string name;   ///< the `name` attribute ("coretemp", "nvme", "k10temp")
  std::vector<HwmonChannel> channels;
};

struct PowercapZone {
  std::string zone;                 ///< "intel-rapl:0"
  std::optional<std::string> name;  ///< "package-0", "dram", "core"
  std::optional<std::int64_t> energy_uj;
  std::optional<std::int64_t> max_energy_range_uj;
  std::optional<std::string> note;  ///< e.g. "energy_uj needs root"
};

struct HostSensors {
  std::vector<HwmonDevice> hwmon;
  std::optional<std::string> hwmon_absent;
  std::vector<PowercapZone> powercap;
  std::optional<std::string> powercap_absent;
  /// NVIDIA discrete GPUs the proprietary driver lists (/proc/driver/nvidia/gpus/*).
  std::vector<std::string> nvidia_gpus;
  std::optional<std::string> nvidia_gpus_absent;
};

HostSensors discover_host_sensors(const sysfs::Root& root);

}  // namespace jetchar::jetson
