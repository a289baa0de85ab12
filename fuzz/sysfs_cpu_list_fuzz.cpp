// Kernel CPU list parser: parse or FormatError; a parsed list formats and re-parses to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sysfs/cpu_list.h"
#include "sysfs/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::sysfs;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto cpus = parse_cpu_list(text, "online");
    if (parse_cpu_list(format_cpu_list(cpus)) != cpus) std::abort();
  } catch (const FormatError& error) {
    if (error.path() != "online") std::abort();
  }
  return 0;
}
