// What the storage side did during an epoch: page-cache residency of the data set's files before
// and after (vmtouch-style, as the seed study logs it), and the I/O of the block device holding
// them from /proc/diskstats, plus the medium (SD, eMMC, NVMe, ...) recorded with every run.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sysfs/proc_diskstats.h"
#include "sysfs/root.h"
#include "sysfs/storage_medium.h"

namespace jetchar::loaders {

struct DataPathEpoch {
  std::optional<double> residency_before;  ///< share of the data set's pages in the page cache
  std::optional<double> residency_after;
  std::optional<sysfs::DiskIoDelta> io;  ///< nullopt when the files are on no block device (tmpfs)
  std::string device;                    ///< diskstats name the I/O was read from ("nvme0n1p2")
};

class DataPathMonitor {
 public:
  /// `files`: the data set's files; `location`: a path on the same file system (the data set root).
  /// Storage classification failures are recorded (medium unknown), not thrown.
  DataPathMonitor(const sysfs::Root& root, std::vector<std::filesystem::path> files,
                  const std::filesystem::path& location);

  const std::optional<sysfs::StorageInfo>& storage() const { return storage_; }
  /// "nvme", "sd_card", ... or "unknown".
  std::string medium_name() const;

  void begin_epoch();
  DataPathEpoch end_epoch();

 private:
  std::optional<double> residency() const;
  std::optional<sysfs::DiskStats> disk_stats() const;

  sysfs::Root root_;
  std::vector<std::filesystem::path> files_;
  std::optional<sysfs::StorageInfo> storage_;
  std::string diskstats_name_;
  DataPathEpoch current_;
  std::optional<sysfs::DiskStats> before_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace jetchar::loaders
