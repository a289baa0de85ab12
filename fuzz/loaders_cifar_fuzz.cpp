// CIFAR-10 batch checks (file size, every record's label) and batches.meta.txt parsing.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string_view>

#include "loaders/cifar10_dataset.h"

using namespace jetchar::loaders;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto classes =
        parse_cifar_class_names(std::string_view(reinterpret_cast<const char*>(data), size), "meta.txt");
    if (classes.empty() || classes.size() > 256) __builtin_trap();
  } catch (const std::exception&) {
  }
  const std::size_t classes = size > 0 ? (data[0] % 16) + 1 : 10;
  try {
    check_cifar_file_size(size, "batch.bin");
    for (std::size_t offset = 0; offset + kCifarRecordBytes <= size; offset += kCifarRecordBytes) {
      const auto error = check_cifar_record({data + offset, kCifarRecordBytes}, classes, "batch.bin", offset);
      if (error.empty() != (data[offset] < classes)) __builtin_trap();
    }
  } catch (const std::exception&) {
  }
  // A short record must be refused.
  if (size < kCifarRecordBytes && check_cifar_record({data, size}, classes, "batch.bin", 0).empty()) __builtin_trap();
  return 0;
}
