// /proc/stat parser: any input either parses or throws FormatError; parsed counters keep the
// invariants the utilization helpers rely on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sysfs/error.h"
#include "sysfs/proc_stat.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ProcStat stat = parse_proc_stat(text);
    if (stat.all.busy_ticks() > stat.all.total_ticks()) std::abort();
    for (const auto& [cpu, fraction] : per_core_busy_fraction(stat, stat)) {
      if (cpu < 0 || fraction.has_value()) std::abort();  // no tick elapsed between identical snapshots
    }
    for (const auto& [cpu, times] : stat.cpus) {
      const auto fraction = busy_fraction(CpuTimes{}, times);
      if (fraction && (*fraction < 0.0 || *fraction > 1.0)) std::abort();
    }
  } catch (const FormatError& error) {
    if (error.path() != "/proc/stat") std::abort();
  }
  return 0;
}
