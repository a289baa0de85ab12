#include "loaders/dataset.h"

#include <functional>
#include <numeric>
#include <system_error>

namespace jetchar::loaders {

std::int64_t SampleLayout::input_elements() const {
  return std::accumulate(input_shape.begin(), input_shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::int64_t SampleLayout::target_elements() const {
  return std::accumulate(target_shape.begin(), target_shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::uint64_t total_file_bytes(const std::vector<std::filesystem::path>& files) {
  std::uint64_t total = 0;
  for (const auto& file : files) {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (!error) total += size;
  }
  return total;
}

}  // namespace jetchar::loaders
