// RDTech UM: frame assembler (resynchronisation) and frame parser on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <span>

#include "jetson/meters/um_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::jetson::meters;
  const std::span<const std::uint8_t> bytes(data, size);
  (void)parse_um_frame(bytes);
  UmFrameAssembler assembler;
  std::vector<UmFrame> frames;
  for (std::size_t at = 0; at < size; at += 61)
    assembler.feed(bytes.subspan(at, std::min<std::size_t>(61, size - at)), frames);
  for (const auto& frame : frames) {
    const auto again = parse_um_frame(encode_um_frame(frame));
    if (!again) __builtin_trap();  // every decoded frame must re-encode to a valid frame
  }
  return 0;
}
