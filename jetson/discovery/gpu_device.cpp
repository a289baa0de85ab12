#include "jetson/discovery/gpu_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

constexpr std::array<std::string_view, 5> kGpuCompatibles = {"nvidia,gv11b", "nvidia,ga10b", "nvidia,gp10b",
                                                             "nvidia,gb10b", "nvidia,tegra210-gm20b"};
// nvgpu's load_show returns gk20a_busy()'s error when it cannot power the GPU up to read the
// load (docs/kernel-formats.md, nvgpu rows): ENODEV while the driver cannot take the GPU busy,
// the runtime-PM error otherwise.
constexpr ErrnoMeaning kLoadErrors[] = {
    {ENODEV, "nvgpu cannot take the GPU busy to read its load (gk20a_busy failed)"},
    {EAGAIN, "nvgpu could not power the GPU up to read its load (gk20a_busy failed)"},
    {ETIMEDOUT, "nvgpu timed out powering the GPU up to read its load (gk20a_busy failed)"},
};

constexpr std::array<std::string_view, 6> kGpuNodeNames = {"gv11b", "ga10b", "gp10b", "gm20b", "gb10b", "gpu"};

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

// nvidia.ko's GPC clock device: named gpu-gpc-<node> by nv_pci_gb10b_register_devfreq, a child of
// the GPU's PCI function, whose `vendor` (drivers/pci/pci-sysfs.c vendor_show, "0x%04x\n") is
// NVIDIA's. `device_dir` is the canonical folder behind the devfreq node's `device` link.
std::optional<std::string> nvidia_ko_match(AttributeReader& read, const std::string& device_dir) {
  const auto slash = device_dir.rfind('/');
  if (slash == std::string::npos || device_dir.compare(slash + 1, 8, "gpu-gpc-") != 0) return std::nullopt;
  const std::string pci = device_dir.substr(0, slash);
  const auto vendor = read.text(pci + "/vendor", "GPU PCI vendor");
  if (vendor != "0x10de") return std::nullopt;
  return "nvidia.ko GPC clock of PCI " + pci.substr(pci.rfind('/') + 1);
}

}  // namespace

GpuDiscovery discover_gpu(const sysfs::Root& root) {
  GpuDiscovery result;
  AttributeReader read(root, result.unavailable);
  if (!root.is_directory("/sys/class/devfreq")) {
    result.absent = "no /sys/class/devfreq (no devfreq devices on this machine)";
    return result;
  }
  std::vector<std::string> platform_gpu_compatible;
  for (const char* alias : {"/sys/devices/platform/gpu.0", "/sys/devices/gpu.0"}) {
    if (platform_gpu_compatible.empty()) {
      platform_gpu_compatible =
          read.dt_strings(std::string(alias) + "/of_node/compatible", "GPU device-tree compatible")
              .value_or(std::vector<std::string>{});
    }
  }

  for (const auto& name : root.list("/sys/class/devfreq")) {
    const std::string node = "/sys/class/devfreq/" + name;
    const auto compatible = read.dt_strings(node + "/device/of_node/compatible", name + " device-tree compatible")
                                .value_or(std::vector<std::string>{});
    std::optional<std::string> of_name;
    if (auto names = read.dt_strings(node + "/device/of_node/name", name + " device-tree name");
        names && !names->empty()) {
      of_name = names->front();
    }
    const std::string device_dir = root.canonical(node + "/device");
    auto match = gpu_match(compatible, of_name, platform_gpu_compatible);
    bool nvidia_ko = false;
    if (!match) {
      match = nvidia_ko_match(read, device_dir);
      nvidia_ko = match.has_value();
    }
    if (!match) continue;

    GpuDevice gpu;
    gpu.devfreq_name = name;
    gpu.devfreq_path = node;
    gpu.device_path = device_dir;
    if (!compatible.empty()) gpu.of_compatible = compatible.front();
    gpu.of_name = of_name;
    gpu.matched_by = *match;
    if (auto freqs = read.integers(node + "/available_frequencies", "GPU available_frequencies")) {
      gpu.available_freqs_hz = std::move(*freqs);
      std::sort(gpu.available_freqs_hz.begin(), gpu.available_freqs_hz.end());
    }
    if (auto governors = read.words(node + "/available_governors", "GPU available_governors")) {
      gpu.available_governors = std::move(*governors);
    }
    gpu.governor = read.text(node + "/governor", "GPU governor");
    gpu.min_freq_hz = read.integer(node + "/min_freq", "GPU min_freq");
    gpu.max_freq_hz = read.integer(node + "/max_freq", "GPU max_freq");
    gpu.cur_freq_hz = read.integer(node + "/cur_freq", "GPU cur_freq");

    if (nvidia_ko) {
      gpu.load_absent = "nvidia.ko has no load file; the GPU's load is NVML's";
      result.gpu = std::move(gpu);
      return result;
    }
    // The nvgpu attributes live on the device itself on R36 and on the gpu.0 alias before.
    const std::vector<std::string> device_dirs = {gpu.device_path, "/sys/devices/platform/gpu.0", "/sys/devices/gpu.0"};
    for (const auto& dir : device_dirs) {
      if (!gpu.load_path && root.exists(dir + "/load")) {
        gpu.load_path = dir + "/load";
        gpu.load_permille = read.integer(*gpu.load_path, "GPU load", kLoadErrors);
      }
      if (!gpu.railgate_path && root.exists(dir + "/railgate_enable")) {
        gpu.railgate_path = dir + "/railgate_enable";
        if (auto railgate = read.integer(*gpu.railgate_path, "GPU railgate_enable"))
          gpu.railgate_enabled = *railgate != 0;
      }
      if (!gpu.tpc_pg_mask) gpu.tpc_pg_mask = read.integer(dir + "/tpc_pg_mask", "GPU tpc_pg_mask");
    }
    result.gpu = std::move(gpu);
    return result;
  }
  result.absent =
      "no devfreq node whose device-tree node is an NVIDIA iGPU (gv11b, ga10b, gp10b, gm20b, gb10b, gpu)"
      " or that is nvidia.ko's GPC clock (gpu-gpc-N under an NVIDIA PCI device)"
      "; a rail-gated GPU may register its node only on first use";
  return result;
}

}  // namespace jetchar::jetson
