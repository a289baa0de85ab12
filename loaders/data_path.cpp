#include "loaders/data_path.h"

#include <stdexcept>

#include "sysfs/page_cache.h"

namespace jetchar::loaders {

DataPathMonitor::DataPathMonitor(const sysfs::Root& root, std::vector<std::filesystem::path> files,
                                 const std::filesystem::path& location)
    : root_(root), files_(std::move(files)) {
  if (!location.empty()) {
    try {
      storage_ = sysfs::storage_of_path(root_, location);
      diskstats_name_ = !storage_->device_name.empty() ? storage_->device_name : storage_->disk_name;
    } catch (const std::exception&) {
      storage_.reset();  // no medium: recorded as unknown
    }
  }
}

std::string DataPathMonitor::medium_name() const {
  return storage_ ? std::string(sysfs::to_string(storage_->medium)) : std::string("unknown");
}

std::optional<double> DataPathMonitor::residency() const {
  if (files_.empty()) return std::nullopt;
  try {
    return sysfs::page_residency(files_).resident_fraction();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<sysfs::DiskStats> DataPathMonitor::disk_stats() const {
  if (diskstats_name_.empty()) return std::nullopt;
  try {
    const auto all = sysfs::read_proc_diskstats(root_);
    if (const auto* entry = sysfs::find_disk_stats(all, diskstats_name_)) return *entry;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

void DataPathMonitor::begin_epoch() {
  current_ = DataPathEpoch{};
  current_.device = diskstats_name_;
  current_.residency_before = residency();
  before_ = disk_stats();
  started_ = std::chrono::steady_clock::now();
}

DataPathEpoch DataPathMonitor::end_epoch() {
  const auto elapsed_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started_).count();
  if (before_) {
    if (const auto after = disk_stats()) current_.io = sysfs::disk_io_delta(*before_, *after, elapsed_ns);
  }
  current_.residency_after = residency();
  return current_;
}

}  // namespace jetchar::loaders
