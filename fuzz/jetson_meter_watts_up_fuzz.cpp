// Watts Up? stream: splitter + packet parser + record decoder on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jetson/meters/watts_up_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::jetson::meters;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  WattsUpPacketSplitter splitter;
  std::vector<std::string> packets;
  // Feed in two pieces so a packet split across reads is exercised too.
  splitter.feed(bytes.substr(0, size / 2), packets);
  splitter.feed(bytes.substr(size / 2), packets);
  for (const auto& text : packets) {
    if (const auto packet = parse_watts_up_packet(text)) (void)decode_watts_up_record(*packet);
  }
  if (const auto packet = parse_watts_up_packet(bytes)) (void)decode_watts_up_record(*packet);
  return 0;
}
