#include "jetson/emc_clock.h"

#include <cerrno>

#include "sysfs/attribute.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

struct Candidate {
  const char* interface;
  const char* rate;
  const char* min_rate;
  const char* max_rate;
  const char* locked;
};

// Probed in order (reference §2.3); the first readable rate wins.
constexpr Candidate kCandidates[] = {
    {"bpmp debugfs", "/sys/kernel/debug/bpmp/debug/clk/emc/rate", "/sys/kernel/debug/bpmp/debug/clk/emc/min_rate",
     "/sys/kernel/debug/bpmp/debug/clk/emc/max_rate", "/sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked"},
    {"tegra210 clk debugfs", "/sys/kernel/debug/clk/override.emc/clk_rate", "/sys/kernel/debug/tegra_bwmgr/emc_min_rate",
     "/sys/kernel/debug/tegra_bwmgr/emc_max_rate", "/sys/kernel/debug/clk/override.emc/clk_state"},
    {"clk debugfs", "/sys/kernel/debug/clk/emc/clk_rate", "/sys/kernel/debug/clk/emc/clk_min_rate",
     "/sys/kernel/debug/clk/emc/clk_max_rate", nullptr},
    {"devfreq bwmgr", "/sys/class/devfreq/bwmgr/cur_freq", "/sys/class/devfreq/bwmgr/min_freq",
     "/sys/class/devfreq/bwmgr/max_freq", nullptr},
};

constexpr const char* kCapPaths[] = {"/sys/kernel/nvpmodel_clk_cap/emc", "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"};

bool permission_error(const sysfs::IoError& e) { return e.error_number() == EACCES || e.error_number() == EPERM; }

// CCF reports "no cap" as 2^64-1 (ULLONG_MAX), which does not fit a signed rate: absent.
constexpr std::string_view kNoCap = "18446744073709551615";

std::optional<std::int64_t> optional_int(const sysfs::Root& root, const char* path) {
  if (path == nullptr || !root.exists(path)) return std::nullopt;
  if (sysfs::read_string(root, path) == kNoCap) return std::nullopt;
  return sysfs::read_int(root, path);
}

}  // namespace

std::string_view to_string(EmcAccess access) {
  switch (access) {
    case EmcAccess::kReadable: return "readable";
    case EmcAccess::kNeedsRoot: return "needs root";
    case EmcAccess::kAbsent: return "absent";
  }
  return "absent";
}

EmcClock discover_emc_clock(const sysfs::Root& root) {
  EmcClock emc;
  for (const char* cap : kCapPaths) {
    if (!root.exists(cap)) continue;
    emc.cap_path = cap;
    const std::int64_t value = sysfs::read_int(root, cap);
    if (value > 0) emc.cap_hz = value;
    break;
  }

  for (const auto& candidate : kCandidates) {
    if (!root.exists(candidate.rate)) continue;
    try {
      emc.cur_rate_hz = sysfs::read_int(root, candidate.rate);
      emc.min_rate_hz = optional_int(root, candidate.min_rate);
      emc.max_rate_hz = optional_int(root, candidate.max_rate);
      if (auto locked = optional_int(root, candidate.locked)) emc.rate_locked = *locked != 0;
    } catch (const sysfs::IoError& e) {
      if (!permission_error(e)) throw;
      EmcClock unreadable;
      unreadable.cap_path = emc.cap_path;
      unreadable.cap_hz = emc.cap_hz;
      emc = std::move(unreadable);
      emc.access = EmcAccess::kNeedsRoot;
      emc.interface = candidate.interface;
      emc.note = std::string(candidate.rate) + " is not readable: needs root";
      return emc;
    }
    emc.access = EmcAccess::kReadable;
    emc.interface = candidate.interface;
    emc.rate_path = candidate.rate;
    if (std::string_view(candidate.interface) == "bpmp debugfs" &&
        root.exists("/sys/kernel/debug/bpmp/debug/emc/possible_rates")) {
      for (auto khz : sysfs::read_int_list(root, "/sys/kernel/debug/bpmp/debug/emc/possible_rates")) {
        emc.possible_rates_hz.push_back(khz * 1000);
      }
    }
    return emc;
  }

  // No rate found. On a board whose debugfs is unreadable for this user (mode 0700, or not
  // mounted) the folder is empty or cannot be listed.
  const bool debugfs_empty = root.is_directory("/sys/kernel/debug") && root.list("/sys/kernel/debug").empty();
  if (debugfs_empty || (emc.cap_path && root.exists("/sys/kernel/debug"))) {
    emc.access = EmcAccess::kNeedsRoot;
    emc.note = "debugfs (/sys/kernel/debug) is not readable or not mounted: the EMC rate needs root";
  } else {
    emc.access = EmcAccess::kAbsent;
    emc.note = "no EMC clock interface (BPMP or tegra210 debugfs, devfreq bwmgr)";
  }
  return emc;
}

}  // namespace jetchar::jetson
