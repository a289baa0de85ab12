#include "jetson/discovery/emc_clock.h"

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
    {"tegra210 clk debugfs", "/sys/kernel/debug/clk/override.emc/clk_rate",
     "/sys/kernel/debug/tegra_bwmgr/emc_min_rate", "/sys/kernel/debug/tegra_bwmgr/emc_max_rate",
     "/sys/kernel/debug/clk/override.emc/clk_state"},
    {"clk debugfs", "/sys/kernel/debug/clk/emc/clk_rate", "/sys/kernel/debug/clk/emc/clk_min_rate",
     "/sys/kernel/debug/clk/emc/clk_max_rate", nullptr},
    {"devfreq bwmgr", "/sys/class/devfreq/bwmgr/cur_freq", "/sys/class/devfreq/bwmgr/min_freq",
     "/sys/class/devfreq/bwmgr/max_freq", nullptr},
};

constexpr const char* kCapPaths[] = {"/sys/kernel/nvpmodel_clk_cap/emc", "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"};

bool permission_error(const sysfs::IoError& e) { return e.error_number() == EACCES || e.error_number() == EPERM; }

// CCF reports "no cap" as 2^64-1 (ULLONG_MAX), which does not fit a signed rate: absent.
constexpr std::string_view kNoCap = "18446744073709551615";

std::optional<std::int64_t> optional_rate(AttributeReader& read, const char* path, std::string_view item) {
  if (path == nullptr) return std::nullopt;
  const auto text = read.text(path, item);
  if (!text || *text == kNoCap) return std::nullopt;
  try {
    return sysfs::parse_int(*text, path, /*allow_unit_suffix=*/true);
  } catch (const sysfs::FormatError& e) {
    read.note(std::string(item), path, e.what());
    return std::nullopt;
  }
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
  AttributeReader read(root, emc.unavailable);
  for (const char* cap : kCapPaths) {
    if (!root.exists(cap)) continue;
    emc.cap_path = cap;
    if (const auto value = optional_rate(read, cap, "EMC nvpmodel cap"); value && *value > 0) emc.cap_hz = value;
    break;
  }

  for (const auto& candidate : kCandidates) {
    if (!root.exists(candidate.rate)) continue;
    // The rate decides whether this interface is usable; only a permission error is expected
    // (debugfs is root's), anything else makes the rate unavailable and the next candidate is tried.
    try {
      emc.cur_rate_hz = sysfs::parse_int(sysfs::read_string(root, candidate.rate), candidate.rate, true);
    } catch (const sysfs::IoError& e) {
      if (permission_error(e)) {
        emc.access = EmcAccess::kNeedsRoot;
        emc.interface = candidate.interface;
        emc.note = std::string(candidate.rate) + " is not readable: needs root";
        return emc;
      }
      read.note("EMC rate", candidate.rate, std::string("read failed: ") + e.what());
      continue;
    } catch (const sysfs::FormatError& e) {
      read.note("EMC rate", candidate.rate, e.what());
      continue;
    }
    emc.min_rate_hz = optional_rate(read, candidate.min_rate, "EMC min rate");
    emc.max_rate_hz = optional_rate(read, candidate.max_rate, "EMC max rate");
    if (const auto locked = optional_rate(read, candidate.locked, "EMC rate lock")) emc.rate_locked = *locked != 0;
    emc.access = EmcAccess::kReadable;
    emc.interface = candidate.interface;
    emc.rate_path = candidate.rate;
    if (std::string_view(candidate.interface) == "bpmp debugfs") {
      // Firmware lists its table in kHz (one board printed the unit after the list).
      if (const auto khz = read.integers("/sys/kernel/debug/bpmp/debug/emc/possible_rates", "EMC possible rates", {},
                                         /*allow_unit_suffix=*/true)) {
        for (auto rate : *khz) emc.possible_rates_hz.push_back(rate * 1000);
      }
    } else if (std::string_view(candidate.interface) == "devfreq bwmgr") {
      if (const auto hz =
              read.integers("/sys/class/devfreq/bwmgr/available_frequencies", "EMC available frequencies")) {
        emc.possible_rates_hz = *hz;
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
    emc.note = emc.unavailable.empty() ? "no EMC clock interface (BPMP or tegra210 debugfs, devfreq bwmgr)"
                                       : "no readable EMC clock interface (see the unavailable items)";
  }
  return emc;
}

}  // namespace jetchar::jetson
