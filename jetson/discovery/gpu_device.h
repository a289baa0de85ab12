// The integrated GPU: its devfreq node found by what is behind it, never by a fixed path, because
// the node's name and location move between L4T lines:
//  - nvgpu (R32-R36, Orin on R39): the device-tree node (`device/of_node/compatible`
//    nvidia,gv11b|ga10b|gp10b|gm20b|gb10b, or `of_node/name` in gv11b, ga10b, gp10b, gm20b, gb10b,
//    gpu): 17000000.gv11b, 17000000.ga10b, 17000000.gpu, 57000000.gpu;
//  - nvidia.ko (AGX Thor, R38+): the GPU is a PCI device, and the driver registers one child
//    device per GPU clock under it, without a device-tree node (open-gpu-kernel-modules
//    kernel-open/nvidia/nv-pci.c nv_pci_gb10b_register_devfreq): the GPC clock's `gpu-gpc-N` and
//    the NVD clock's `gpu-nvd-N` carry devfreq nodes. The GPU's clock is the GPC node under a PCI
//    device whose `vendor` is NVIDIA's 0x10de. That driver has no `load` file (the load comes
//    from NVML).
// devfreq frequencies are Hz; `load` is per-mille.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/discovery/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct GpuDevice {
  std::string devfreq_name;                  ///< "17000000.gpu"
  std::string devfreq_path;                  ///< "/sys/class/devfreq/17000000.gpu"
  std::string device_path;                   ///< canonical device folder ("/sys/devices/platform/bus@0/17000000.gpu")
  std::optional<std::string> of_compatible;  ///< first compatible string of the DT node
  std::optional<std::string> of_name;
  /// "of_node/compatible nvidia,ga10b", "of_node/name gpu" or "nvidia.ko GPC clock of PCI 0000:01:00.0"
  std::string matched_by;
  std::vector<std::int64_t> available_freqs_hz;
  std::vector<std::string> available_governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_freq_hz;
  std::optional<std::int64_t> max_freq_hz;
  std::optional<std::int64_t> cur_freq_hz;
  std::optional<std::string> load_path;  ///< per-mille load file, when one exists
  std::optional<std::int64_t> load_permille;
  /// Why there is no load file (nvidia.ko has none), when that is known.
  std::optional<std::string> load_absent;
  std::optional<std::string> railgate_path;
  std::optional<bool> railgate_enabled;
  std::optional<std::int64_t> tpc_pg_mask;
};

struct GpuDiscovery {
  std::optional<GpuDevice> gpu;
  /// Why `gpu` is missing (no devfreq, no matching node, ...).
  std::optional<std::string> absent;
  /// Attributes that exist but could not be read, with the reason.
  std::vector<Unavailable> unavailable;
};

GpuDiscovery discover_gpu(const sysfs::Root& root);

}  // namespace jetchar::jetson
