#include "sysfs/proc_diskstats.h"

#include <algorithm>
#include <array>
#include <limits>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_text.h"

namespace jetchar::sysfs {
namespace {

constexpr const char* kDiskstatsExpected =
    "'major minor name' followed by at least 11 decimal counters (see Documentation/admin-guide/iostats.rst)";
// Sector counts are multiplied by 512 for bytes; larger values would overflow (and no disk has them).
constexpr std::uint64_t kMaxCounter = std::numeric_limits<std::uint64_t>::max() / kDiskstatsSectorBytes;

}  // namespace

std::vector<DiskStats> parse_proc_diskstats(std::string_view text, std::string_view source) {
  std::vector<DiskStats> stats;
  const auto lines = split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const auto fields = split_fields(lines[index]);
    if (fields.empty()) continue;
    const auto fail = [&] {
      return FormatError(std::string(source), index + 1, excerpt(lines[index]), kDiskstatsExpected);
    };
    if (fields.size() < 14) throw fail();
    const auto major = parse_u64(fields[0]);
    const auto minor = parse_u64(fields[1]);
    // dev_t holds a 12-bit major and a 20-bit minor.
    if (!major || !minor || *major > 0xfff || *minor > 0xfffff) throw fail();
    std::vector<std::uint64_t> counters;
    for (size_t i = 3; i < fields.size(); ++i) {
      const auto value = parse_u64(fields[i]);
      if (!value || *value > kMaxCounter) throw fail();
      counters.push_back(*value);
    }
    DiskStats disk;
    disk.major = static_cast<unsigned>(*major);
    disk.minor = static_cast<unsigned>(*minor);
    disk.name = std::string(fields[2]);
    disk.reads_completed = counters[0];
    disk.reads_merged = counters[1];
    disk.sectors_read = counters[2];
    disk.read_time_ms = counters[3];
    disk.writes_completed = counters[4];
    disk.writes_merged = counters[5];
    disk.sectors_written = counters[6];
    disk.write_time_ms = counters[7];
    disk.ios_in_progress = counters[8];
    disk.io_time_ms = counters[9];
    disk.weighted_io_time_ms = counters[10];
    if (counters.size() >= 15) {
      disk.discards_completed = counters[11];
      disk.discards_merged = counters[12];
      disk.sectors_discarded = counters[13];
      disk.discard_time_ms = counters[14];
    }
    if (counters.size() >= 17) {
      disk.flushes_completed = counters[15];
      disk.flush_time_ms = counters[16];
    }
    stats.push_back(std::move(disk));
  }
  return stats;
}

std::vector<DiskStats> read_proc_diskstats(const Root& root) {
  return parse_proc_diskstats(read_string(root, "/proc/diskstats"), "/proc/diskstats");
}

const DiskStats* find_disk_stats(const std::vector<DiskStats>& stats, std::string_view name) {
  const auto it = std::find_if(stats.begin(), stats.end(), [&](const DiskStats& d) { return d.name == name; });
  return it == stats.end() ? nullptr : &*it;
}

std::optional<DiskIoDelta> disk_io_delta(const DiskStats& before, const DiskStats& after, std::int64_t interval_ns) {
  if (interval_ns <= 0 || before.major != after.major || before.minor != after.minor) return std::nullopt;
  const std::array<std::uint64_t, 5> earlier{before.reads_completed, before.sectors_read, before.writes_completed,
                                             before.sectors_written, before.io_time_ms};
  const std::array<std::uint64_t, 5> later{after.reads_completed, after.sectors_read, after.writes_completed,
                                           after.sectors_written, after.io_time_ms};
  for (size_t i = 0; i < earlier.size(); ++i) {
    if (later[i] < earlier[i]) return std::nullopt;
  }
  DiskIoDelta delta;
  delta.interval_ns = interval_ns;
  delta.reads_completed = after.reads_completed - before.reads_completed;
  delta.writes_completed = after.writes_completed - before.writes_completed;
  delta.bytes_read = after.bytes_read() - before.bytes_read();
  delta.bytes_written = after.bytes_written() - before.bytes_written();
  const double seconds = static_cast<double>(interval_ns) * 1e-9;
  delta.read_iops = static_cast<double>(delta.reads_completed) / seconds;
  delta.write_iops = static_cast<double>(delta.writes_completed) / seconds;
  delta.read_bytes_per_s = static_cast<double>(delta.bytes_read) / seconds;
  delta.write_bytes_per_s = static_cast<double>(delta.bytes_written) / seconds;
  const double busy_ms = static_cast<double>(after.io_time_ms - before.io_time_ms);
  delta.busy_fraction = std::min(1.0, busy_ms / (seconds * 1e3));
  return delta;
}

}  // namespace jetchar::sysfs
