#include "jetson/discovery/board_info.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "sysfs/attribute.h"

namespace jetchar::jetson {

std::optional<std::int64_t> read_memory_total_kib(const sysfs::Root& root) {
  const auto text = sysfs::try_read_string(root, "/proc/meminfo");
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    // "MemTotal:       31335464 kB"
    std::string value = line.substr(9);
    if (const size_t unit = value.find("kB"); unit != std::string::npos) value.resize(unit);
    return sysfs::parse_int(value, "/proc/meminfo MemTotal");
  }
  return std::nullopt;
}

BoardInfo discover_board_info(const sysfs::Root& root, BoardRequest request) {
  BoardInfo info;
  info.identity = discover_board_identity(root);
  if (request == BoardRequest::kJetson && info.identity.kind != BoardKind::kJetson) {
    throw std::invalid_argument(
        fmt::format("--board jetson: {} is not a Jetson (device-tree compatible has no nvidia,tegra<N> entry{}); "
                    "use --board host or --board sim:<fixture>",
                    root.prefix().string(), info.identity.device_tree_path ? "" : ", and there is no device tree"));
  }
  if (request == BoardRequest::kHost) info.identity.kind = BoardKind::kHost;

  info.memory_total_kib = read_memory_total_kib(root);
  info.cpu = discover_cpu_topology(root);
  info.thermal = discover_thermal_zones(root);
  info.host = discover_host_sensors(root);
  if (info.identity.kind == BoardKind::kJetson) {
    info.gpu = discover_gpu(root);
    info.emc = discover_emc_clock(root);
    info.power = discover_power_monitors(root);
    info.fans = discover_fans(root);
  } else {
    const std::string why = request == BoardRequest::kHost ? "not probed (--board host)" : "not a Jetson";
    info.gpu.absent = why + ": no Tegra iGPU";
    info.emc.access = EmcAccess::kAbsent;
    info.emc.note = why + ": no Tegra EMC clock";
    info.power.absent = why + ": no onboard INA3221";
    info.fans.absent = why + ": no Jetson fan control";
  }
  if (root.is_host_root()) info.nvml = discover_nvml();
  return info;
}

}  // namespace jetchar::jetson
