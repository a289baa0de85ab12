#include "experiments/checkpoints/safetensors_header.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "experiments/checkpoints/checkpoint_error.h"

namespace jetchar::experiments {

namespace {

[[noreturn]] void fail(std::string_view source, const std::string& what) {
  throw CheckpointError(fmt::format("safetensors file {}: {}", source, what));
}

std::uint64_t offset_value(const nlohmann::json& value, std::string_view source, const std::string& name) {
  if (!value.is_number_unsigned()) {
    fail(source, fmt::format("tensor '{}': data_offsets {} are not two non-negative integers", name, value.dump()));
  }
  return value.get<std::uint64_t>();
}

SafetensorsTensor parse_entry(const std::string& name, const nlohmann::json& entry, std::string_view source) {
  if (!entry.is_object()) fail(source, fmt::format("tensor '{}' is {}, not an object", name, entry.dump()));
  SafetensorsTensor tensor;
  tensor.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) fail(source, fmt::format("tensor '{}' has no dtype string", name));
  tensor.dtype = dtype->get<std::string>();
  tensor.element_bytes = safetensors_dtype_bytes(tensor.dtype);
  if (tensor.element_bytes == 0) {
    fail(source, fmt::format("tensor '{}' has dtype '{}'; valid: F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL",
                             name, tensor.dtype));
  }
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) fail(source, fmt::format("tensor '{}' has no shape list", name));
  std::uint64_t elements = 1;
  for (const auto& dimension : *shape) {
    if (!dimension.is_number_unsigned() ||
        dimension.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(source, fmt::format("tensor '{}' has shape {}; dimensions are non-negative integers", name, shape->dump()));
    }
    const auto size = dimension.get<std::uint64_t>();
    if (__builtin_mul_overflow(elements, size, &elements)) {
      fail(source, fmt::format("tensor '{}' has shape {}, too many elements", name, shape->dump()));
    }
    tensor.shape.push_back(static_cast<std::int64_t>(size));
  }
  const auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2) {
    fail(source, fmt::format("tensor '{}' has no data_offsets [begin, end]", name));
  }
  tensor.begin = offset_value((*offsets)[0], source, name);
  tensor.end = offset_value((*offsets)[1], source, name);
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(tensor.element_bytes), &bytes) ||
      tensor.end < tensor.begin || tensor.end - tensor.begin != bytes) {
    fail(source, fmt::format("tensor '{}': data_offsets [{}, {}] do not hold its {} {} elements of shape {}", name,
                             tensor.begin, tensor.end, elements, tensor.dtype, shape->dump()));
  }
  return tensor;
}

}  // namespace

std::size_t safetensors_dtype_bytes(std::string_view dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL") return 1;
  return 0;
}

std::uint64_t safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size,
                                        std::string_view source) {
  if (first_bytes.size() < 8 || file_size < 8) {
    fail(source, fmt::format("{} bytes; the format starts with an 8-byte header length", file_size));
  }
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(first_bytes[static_cast<std::size_t>(i)]);
  if (length > kSafetensorsMaxHeaderBytes) {
    fail(source,
         fmt::format("header length {} exceeds the format's limit of {} bytes", length, kSafetensorsMaxHeaderBytes));
  }
  if (length > file_size - 8) {
    fail(source, fmt::format("header length {} exceeds the {} bytes after the length field", length, file_size - 8));
  }
  return length;
}

SafetensorsHeader parse_safetensors_header(std::string_view file_start, std::uint64_t file_size,
                                           std::string_view source) {
  const auto length = safetensors_header_length(file_start, file_size, source);
  if (file_start.size() < 8 + length) {
    fail(source, fmt::format("only {} of the header's {} bytes were given", file_start.size() - 8, length));
  }
  const auto text = file_start.substr(8, length);
  if (text.empty() || text.front() != '{') fail(source, "the header does not start with '{'");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    fail(source, fmt::format("the header is not JSON: {}", e.what()));
  }
  if (!header.is_object()) fail(source, "the header is not a JSON object");

  SafetensorsHeader result;
  result.data_start = 8 + length;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(source, "__metadata__ is not an object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) fail(source, fmt::format("__metadata__ value of '{}' is not a string", key));
        result.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    result.tensors.push_back(parse_entry(name, entry, source));
  }
  std::sort(result.tensors.begin(), result.tensors.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  // The buffer is covered from 0 to its end with no hole and no overlap (a zero-size tensor may
  // sit at any boundary).
  const std::uint64_t buffer_bytes = file_size - result.data_start;
  std::uint64_t covered = 0;
  for (const auto& tensor : result.tensors) {
    if (tensor.begin != covered) {
      fail(source, fmt::format("tensor '{}' starts at byte {} of the data, but the tensors before it end at {} ({})",
                               tensor.name, tensor.begin, covered, tensor.begin < covered ? "overlap" : "hole"));
    }
    covered = tensor.end;
  }
  if (covered != buffer_bytes) {
    fail(source, fmt::format("the tensors cover {} bytes of data, but the file holds {} after the header", covered,
                             buffer_bytes));
  }
  return result;
}

}  // namespace jetchar::experiments
