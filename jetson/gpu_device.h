// The integrated GPU: its devfreq node found by the device-tree node behind it
// (`device/of_node/compatible` nvidia,gv11b|ga10b|gp10b|gm20b|gb10b, or `of_node/name` in
// gv11b, ga10b, gp10b, gm20b, gb10b, gpu), never by a fixed path, because the node's name and
// location move between L4T lines (17000000.gv11b, 17000000.ga10b, 17000000.gpu, 57000000.gpu).
// devfreq frequencies are Hz; `load` is per-mille.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetson/attribute_reader.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct GpuDevice {
  std::string devfreq_name;  ///< "17000000.gpu"
  std::string devfreq_path;  ///< "/sys/class/devfreq/17000000.gpu"
  std::string device_path;   ///< canonical device folder ("/sys/devices/platform/bus@0/17000000.gpu")
  std::optional<std::string> of_compatible;  ///< first compatible string of the DT node
  std::optional<std::string> of_name;
  std::string matched_by;  ///< "of_node/compatible nvidia,ga10b" or "of_node/name gpu"
  std::vector<std::int64_t> available_freqs_hz;
  std::vector<std::string> available_governors;
  std::optional<std::string> governor;
  std::optional<std::int64_t> min_freq_hz;
  std::optional<std::int64_t> max_freq_hz;
  std::optional<std::int64_t> cur_freq_hz;
  std::optional<std::string> load_path;  ///< per-mille load file, when one exists
  std::optional<std::int64_t> load_permille;
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
