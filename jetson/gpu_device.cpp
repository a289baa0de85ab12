#include "jetson/gpu_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

constexpr std::array<std::string_view, 5> kGpuCompatibles = {"nvidia,gv11b", "nvidia,ga10b", "nvidia,gp10b",
                                                             "nvidia,gb10b", "nvidia,tegra210-gm20b"};
constexpr std::array<std::string_view, 6> kGpuNodeNames = {"gv11b", "ga10b", "gp10b", "gm20b", "gb10b", "gpu"};

std::optional<std::int64_t> optional_int(const sysfs::Root& root, const std::string& path) {
  if (!root.exists(path)) return std::nullopt;
  return sysfs::read_int(root, path);
}

std::vector<std::string> optional_dt_strings(const sysfs::Root& root, const std::string& path) {
  if (!root.exists(path)) return {};
  return sysfs::read_dt_strings(root, path);
}

// How a devfreq node matches a GPU, or nullopt. `extra_compatible` is the compatible of
// /sys/devices/platform/gpu.0 (what jetson_clocks looks for) when present.
std::optional<std::string> gpu_match(const std::vector<std::string>& compatible, const std::optional<std::string>& name,
                                     const std::vector<std::string>& extra_compatible) {
  for (const auto& entry : compatible) {
    const bool known = std::find(kGpuCompatibles.begin(), kGpuCompatibles.end(), entry) != kGpuCompatibles.end() ||
                       std::find(extra_compatible.begin(), extra_compatible.end(), entry) != extra_compatible.end();
    if (known) return "of_node/compatible " + entry;
  }
  if (name && std::find(kGpuNodeNames.begin(), kGpuNodeNames.end(), *name) != kGpuNodeNames.end()) {
    return "of_node/name " + *name;
  }
  return std::nullopt;
}

}  // namespace

GpuDiscovery discover_gpu(const sysfs::Root& root) {
  GpuDiscovery result;
  if (!root.is_directory("/sys/class/devfreq")) {
    result.absent = "no /sys/class/devfreq (no devfreq devices on this machine)";
    return result;
  }
  std::vector<std::string> platform_gpu_compatible;
  for (const char* alias : {"/sys/devices/platform/gpu.0", "/sys/devices/gpu.0"}) {
    if (platform_gpu_compatible.empty()) {
      platform_gpu_compatible = optional_dt_strings(root, std::string(alias) + "/of_node/compatible");
    }
  }

  for (const auto& name : root.list("/sys/class/devfreq")) {
    const std::string node = "/sys/class/devfreq/" + name;
    const auto compatible = optional_dt_strings(root, node + "/device/of_node/compatible");
    std::optional<std::string> of_name;
    if (root.exists(node + "/device/of_node/name")) {
      const auto names = sysfs::read_dt_strings(root, node + "/device/of_node/name");
      if (!names.empty()) of_name = names.front();
    }
    const auto match = gpu_match(compatible, of_name, platform_gpu_compatible);
    if (!match) continue;

    GpuDevice gpu;
    gpu.devfreq_name = name;
    gpu.devfreq_path = node;
    gpu.device_path = root.canonical(node + "/device");
    if (!compatible.empty()) gpu.of_compatible = compatible.front();
    gpu.of_name = of_name;
    gpu.matched_by = *match;
    if (root.exists(node + "/available_frequencies")) {
      gpu.available_freqs_hz = sysfs::read_int_list(root, node + "/available_frequencies");
      std::sort(gpu.available_freqs_hz.begin(), gpu.available_freqs_hz.end());
    }
    if (root.exists(node + "/available_governors")) {
      gpu.available_governors = sysfs::read_word_list(root, node + "/available_governors");
    }
    if (root.exists(node + "/governor")) gpu.governor = sysfs::read_string(root, node + "/governor");
    gpu.min_freq_hz = optional_int(root, node + "/min_freq");
    gpu.max_freq_hz = optional_int(root, node + "/max_freq");
    gpu.cur_freq_hz = optional_int(root, node + "/cur_freq");

    // The nvgpu attributes live on the device itself on R36 and on the gpu.0 alias before.
    const std::vector<std::string> device_dirs = {gpu.device_path, "/sys/devices/platform/gpu.0", "/sys/devices/gpu.0"};
    for (const auto& dir : device_dirs) {
      if (!gpu.load_path && root.exists(dir + "/load")) {
        gpu.load_path = dir + "/load";
        gpu.load_permille = sysfs::read_int(root, *gpu.load_path);
      }
      if (!gpu.railgate_path && root.exists(dir + "/railgate_enable")) {
        gpu.railgate_path = dir + "/railgate_enable";
        gpu.railgate_enabled = sysfs::read_int(root, *gpu.railgate_path) != 0;
      }
      if (!gpu.tpc_pg_mask) gpu.tpc_pg_mask = optional_int(root, dir + "/tpc_pg_mask");
    }
    result.gpu = std::move(gpu);
    return result;
  }
  result.absent = "no devfreq node whose device-tree node is an NVIDIA iGPU (gv11b, ga10b, gp10b, gm20b, gb10b, gpu)"
                  "; a rail-gated GPU may register its node only on first use";
  return result;
}

}  // namespace jetchar::jetson
