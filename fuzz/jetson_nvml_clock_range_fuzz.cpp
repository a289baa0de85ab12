// Fuzzes the NVML locked-clock range parser (--gpu-locked-clocks, device.gpu_locked_clocks_mhz and
// the change journal's nvml:<uuid>/*_locked_clocks_mhz values): text either parses to MIN <= MAX,
// printed back as the same "MIN,MAX", or throws std::invalid_argument naming the input.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "jetson/nvml/nvml_control.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto range = jetchar::jetson::parse_clock_range(text, "--gpu-locked-clocks");
    if (range.min_mhz > range.max_mhz) __builtin_trap();
    const auto again =
        jetchar::jetson::parse_clock_range(fmt::format("{},{}", range.min_mhz, range.max_mhz), "round trip");
    if (again.min_mhz != range.min_mhz || again.max_mhz != range.max_mhz) __builtin_trap();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find("--gpu-locked-clocks") == std::string::npos) __builtin_trap();
  }
  return 0;
}
