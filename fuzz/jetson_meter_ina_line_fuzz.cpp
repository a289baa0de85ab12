// INA219/INA226 logger line protocol: line splitter + line parser on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/meters/ina_line_protocol.h"
#include "jetson/meters/line_splitter.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::jetson::meters;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  LineSplitter splitter(128);
  std::vector<std::string> lines;
  splitter.feed(bytes, lines);
  for (const auto& line : lines) {
    if (const auto parsed = parse_ina_line(line)) {
      if (!parse_ina_line(format_ina_line(*parsed)) && parsed->bus_mv < 1e12 && parsed->current_ma < 1e12 &&
          parsed->current_ma > -1e12) {
        __builtin_trap();  // a parsed line must survive a format/parse round trip
      }
    }
  }
  return 0;
}
