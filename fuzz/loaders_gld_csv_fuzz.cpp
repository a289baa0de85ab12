// GLD-23k split CSV parsing: any text either parses into records with safe image ids or throws.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "loaders/gld_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto records =
        jetchar::loaders::parse_gld_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    for (const auto& record : records) {
      if (record.image_id.empty() || record.image_id.find('/') != std::string::npos || record.class_id < 0) {
        __builtin_trap();
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
