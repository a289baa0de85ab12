// /proc/diskstats parser and the delta helper: parse or FormatError; deltas never negative.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sysfs/error.h"
#include "sysfs/proc_diskstats.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto stats = parse_proc_diskstats(text);
    for (size_t i = 0; i + 1 < stats.size(); ++i) {
      if (stats[i].bytes_read() / kDiskstatsSectorBytes != stats[i].sectors_read) std::abort();
      if (const auto delta = disk_io_delta(stats[i], stats[i + 1], 1'000'000)) {
        if (delta->read_iops < 0 || delta->busy_fraction < 0 || delta->busy_fraction > 1) std::abort();
      }
    }
  } catch (const FormatError& error) {
    if (error.path() != "/proc/diskstats" || !error.line()) std::abort();
  }
  return 0;
}
