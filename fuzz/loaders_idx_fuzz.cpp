// IDX header parsing on arbitrary bytes (as a whole file), and gzip inflation of the same bytes.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>

#include "loaders/idx.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    const auto header = jetchar::loaders::parse_idx_header(bytes, size, "fuzz.idx");
    // A valid header promises the data fits exactly: touch its last byte.
    if (header.data_bytes() > 0) {
      volatile std::uint8_t last = data[header.data_offset + header.data_bytes() - 1];
      (void)last;
    }
  } catch (const std::exception&) {
  }
  try {
    const auto inflated = jetchar::loaders::gunzip(bytes, "fuzz.gz");
    (void)inflated;
  } catch (const std::exception&) {
  }
  return 0;
}
