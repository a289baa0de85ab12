// Yokogawa WT300: numeric reply and SCPI command parsers on arbitrary lines.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/meters/wt300_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::jetson::meters;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  for (std::size_t items = 1; items <= 4; ++items) (void)parse_wt300_values(line, items);
  if (const auto command = parse_scpi_command(line)) {
    for (const auto& m : command->mnemonics) (void)scpi_mnemonic_matches(m, "NUMeric", true);
  }
  return 0;
}
