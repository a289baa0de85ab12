// Everything discovery knows about a board, in one value: identity, CPU, GPU, EMC, INA3221
// power monitors, fans, thermal zones and generic host sensors. `jetchar device info` prints it;
// results carry it as their context block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "jetson/discovery/board_identity.h"
#include "jetson/discovery/cpu_topology.h"
#include "jetson/discovery/emc_clock.h"
#include "jetson/discovery/fan.h"
#include "jetson/discovery/gpu_device.h"
#include "jetson/discovery/host_sensors.h"
#include "jetson/discovery/power_monitors.h"
#include "jetson/discovery/thermal.h"
#include "jetson/nvml/nvml_gpus.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

/// What the user asked for with --board: decide from the device tree, or insist on one kind.
enum class BoardRequest { kAuto, kHost, kJetson };

/// Where the information came from; printed with it so that simulated data is never mistaken
/// for a measurement.
struct BoardOrigin {
  std::string board = "host";       ///< "host", "jetson" or "sim:<fixture>"
  std::optional<std::string> root;  ///< the root directory (absent for a simulated board's temp copy)
  bool simulated = false;
  std::optional<std::string> fixture;  ///< the fixture name of a simulated board
};

struct BoardInfo {
  BoardIdentity identity;
  std::optional<std::int64_t> memory_total_kib;
  CpuTopology cpu;
  GpuDiscovery gpu;
  EmcClock emc;
  PowerMonitors power;
  FanDiscovery fans;
  ThermalDiscovery thermal;
  HostSensors host;
  /// NVIDIA GPUs through NVML; probed only for this machine's own root ("/"): a simulated board
  /// or a copied tree has no driver behind it (nullopt: not probed).
  std::optional<NvmlDiscovery> nvml;
};

/// Discovers the board under `root`. kJetson on a machine whose device tree is not a Tegra's
/// throws std::invalid_argument; kHost probes only the generic interfaces (cpufreq, thermal,
/// hwmon, powercap). Throws sysfs::IoError / FormatError for unreadable or malformed inputs.
BoardInfo discover_board_info(const sysfs::Root& root, BoardRequest request = BoardRequest::kAuto);

/// MemTotal of /proc/meminfo in KiB; nullopt when the file or the line is missing.
std::optional<std::int64_t> read_memory_total_kib(const sysfs::Root& root);

}  // namespace jetchar::jetson
