// /proc/diskstats: cumulative I/O counters per block device (Documentation/admin-guide/iostats.rst),
// and the difference between two snapshots as bytes, IOPS and busy time over the interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::sysfs {

/// diskstats counts sectors of 512 bytes whatever the device's logical block size.
inline constexpr std::uint64_t kDiskstatsSectorBytes = 512;

/// One /proc/diskstats line. Counters are cumulative since boot (or since the device appeared).
struct DiskStats {
  unsigned major = 0;
  unsigned minor = 0;
  /// Kernel device name ("mmcblk0", "mmcblk0p1", "nvme0n1", "sda").
  std::string name;
  std::uint64_t reads_completed = 0;
  std::uint64_t reads_merged = 0;
  std::uint64_t sectors_read = 0;
  std::uint64_t read_time_ms = 0;
  std::uint64_t writes_completed = 0;
  std::uint64_t writes_merged = 0;
  std::uint64_t sectors_written = 0;
  std::uint64_t write_time_ms = 0;
  /// Requests in flight right now (not cumulative).
  std::uint64_t ios_in_progress = 0;
  /// Time the device had at least one request in flight ("io_ticks"; %util in iostat).
  std::uint64_t io_time_ms = 0;
  std::uint64_t weighted_io_time_ms = 0;
  /// Discard counters, Linux 4.18+; nullopt on older kernels (L4T R32 runs 4.9).
  std::optional<std::uint64_t> discards_completed;
  std::optional<std::uint64_t> discards_merged;
  std::optional<std::uint64_t> sectors_discarded;
  std::optional<std::uint64_t> discard_time_ms;
  /// Flush counters, Linux 5.5+.
  std::optional<std::uint64_t> flushes_completed;
  std::optional<std::uint64_t> flush_time_ms;

  std::uint64_t bytes_read() const { return sectors_read * kDiskstatsSectorBytes; }
  std::uint64_t bytes_written() const { return sectors_written * kDiskstatsSectorBytes; }
};

/// Parses /proc/diskstats text (blank lines skipped). Throws FormatError naming `source` and
/// the line for a line with fewer than 14 fields, a non-numeric counter or device number.
std::vector<DiskStats> parse_proc_diskstats(std::string_view text, std::string_view source = "/proc/diskstats");
/// Reads and parses /proc/diskstats under `root`. Throws IoError / FormatError.
std::vector<DiskStats> read_proc_diskstats(const Root& root);
/// The entry named `name`, or nullptr.
const DiskStats* find_disk_stats(const std::vector<DiskStats>& stats, std::string_view name);

/// What one device did between two snapshots taken `interval_ns` apart.
struct DiskIoDelta {
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t reads_completed = 0;
  std::uint64_t writes_completed = 0;
  std::int64_t interval_ns = 0;
  double read_iops = 0;
  double write_iops = 0;
  double read_bytes_per_s = 0;
  double write_bytes_per_s = 0;
  /// Share of the interval the device was busy (io_time delta / interval), clamped to 1.
  double busy_fraction = 0;
};

/// Difference `after - before` for the same device. nullopt when the snapshots are of different
/// devices, `interval_ns` is not positive, or a cumulative counter went backwards (the device was
/// removed and re-added in between).
std::optional<DiskIoDelta> disk_io_delta(const DiskStats& before, const DiskStats& after, std::int64_t interval_ns);

}  // namespace jetchar::sysfs
