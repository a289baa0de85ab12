// The GLD-23k split CSV (`user_id,image_id,class`, header required, as TFF and FedML ship it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders {

struct GldRecord {
  std::string user_id;
  std::string image_id;  ///< the image file is <image_id>.jpg
  std::int64_t class_id = 0;
  std::size_t line = 0;  ///< 1-based line in the CSV (for errors about the image later)
};

/// Parses the CSV text. The header must name the columns user_id, image_id and class (any order,
/// extra columns ignored); fields may be double-quoted. Throws sysfs::FormatError naming `name`, the
/// line and the bad value (missing column, empty or path-like image id, non-integer class).
std::vector<GldRecord> parse_gld_csv(std::string_view text, const std::string& name);

}  // namespace jetchar::loaders
