// /proc/meminfo: "Key:   value kB" lines. The common keys are lifted into named optional
// fields; every line stays available by key. NvMapMemUsed is the Jetson nvmap (CPU/GPU shared)
// memory and exists only on Tegra kernels (not on Thor, not on a PC).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sysfs/root.h"

namespace jetchar::sysfs {

struct MemInfo {
  /// Lines with a " kB" unit, by key as printed ("MemTotal", "Active(anon)"), in KiB.
  std::map<std::string, std::uint64_t, std::less<>> values_kb;
  /// Lines without a unit (HugePages_Total, HugePages_Free, ...): page counts, not sizes.
  std::map<std::string, std::uint64_t, std::less<>> counts;

  std::optional<std::uint64_t> mem_total_kb;
  std::optional<std::uint64_t> mem_free_kb;
  /// Kernel's estimate of memory available without swapping (since Linux 3.14).
  std::optional<std::uint64_t> mem_available_kb;
  std::optional<std::uint64_t> buffers_kb;
  /// Page cache, excluding swap cache.
  std::optional<std::uint64_t> cached_kb;
  std::optional<std::uint64_t> swap_total_kb;
  std::optional<std::uint64_t> swap_free_kb;
  /// Jetson only: memory held by nvmap (GPU buffers in the shared DRAM).
  std::optional<std::uint64_t> nvmap_mem_used_kb;

  /// Any " kB" line by key; nullopt when the kernel does not print it.
  std::optional<std::uint64_t> kb(std::string_view key) const;
};

/// Parses /proc/meminfo text. Throws FormatError naming `source` and the line for a line that
/// is not "Key: <decimal>[ kB]" or a key that appears twice.
MemInfo parse_proc_meminfo(std::string_view text, std::string_view source = "/proc/meminfo");
/// Reads and parses /proc/meminfo under `root`. Throws IoError / FormatError.
MemInfo read_proc_meminfo(const Root& root);

}  // namespace jetchar::sysfs
