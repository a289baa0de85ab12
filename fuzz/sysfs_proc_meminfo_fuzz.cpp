// /proc/meminfo parser: any input either parses or throws FormatError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sysfs/error.h"
#include "sysfs/proc_meminfo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const MemInfo info = parse_proc_meminfo(text);
    if (info.mem_total_kb != info.kb("MemTotal")) std::abort();
    for (const auto& [key, value] : info.counts) {
      if (info.values_kb.count(key) != 0) std::abort();  // a key is either a size or a count
    }
  } catch (const FormatError& error) {
    if (error.path() != "/proc/meminfo" || !error.line()) std::abort();
  }
  return 0;
}
