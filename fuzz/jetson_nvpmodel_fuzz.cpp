// libFuzzer target for the nvpmodel configuration parser: any byte string either parses into a
// model whose summary can be computed, or raises NvpmodelParseError — never anything else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/control/nvpmodel_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto config = jetchar::jetson::parse_nvpmodel_config(text, "fuzz.conf");
    for (const auto& mode : config.modes) (void)jetchar::jetson::summarize(mode);
    (void)config.mode(config.default_mode);
  } catch (const jetchar::jetson::NvpmodelParseError&) {
  }
  return 0;
}
