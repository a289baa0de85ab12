#include "jetson/control/control_snapshot.h"

#include <algorithm>

#include "jetson/control/control_points.h"
#include "jetson/nvml/nvml_control.h"
#include "jetson/nvml/nvml_gpus.h"

namespace jetchar::jetson {

ControlSnapshot snapshot_controls(const sysfs::Root& root) {
  const auto controls = discover_device_controls(root);
  std::vector<std::string> paths;
  for (const auto& core : controls.cores) {
    if (core.online_path) paths.push_back(root.canonical(*core.online_path));
  }
  for (const auto& path : controls.allowlist) {
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  ControlSnapshot snapshot;
  // NVML describes this host's GPUs only: a board under another root has none of them.
  if (root.is_host_root()) {
    const auto nvml = discover_nvml();
    if (!nvml.gpus.empty()) register_nvml_controls();
    for (const auto& gpu : nvml.gpus) paths.push_back(nvml_control_path(gpu.uuid, NvmlKnob::kPowerLimit));
  }
  for (auto& path : paths) {
    try {
      auto original = sysfs::read_raw_attribute(root, path);
      snapshot.entries.push_back({std::move(path), std::move(original)});
    } catch (const std::exception& e) {
      snapshot.left_out.push_back(e.what());
    }
  }
  return snapshot;
}

}  // namespace jetchar::jetson
