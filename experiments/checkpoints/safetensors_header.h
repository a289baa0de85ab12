// The header of a safetensors file (the weight format of Hugging Face model folders), parsed
// without LibTorch. The format (huggingface/safetensors README, "Format"):
//   8 bytes   N, an unsigned 64-bit little-endian integer, the header's size
//   N bytes   a UTF-8 JSON object: tensor name -> {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//             plus an optional "__metadata__" object of string values; the JSON may end in spaces
//   the rest  the byte buffer: each tensor's little-endian, row-major data at [begin, end) counted
//             from the buffer's start; the tensors cover the buffer with no holes and no overlap.
// The reference implementation refuses headers above 100 MB; so does this one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::experiments {

struct SafetensorsTensor {
  std::string name;
  std::string dtype;                ///< as written: F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL
  std::size_t element_bytes = 0;    ///< of the dtype
  std::vector<std::int64_t> shape;  ///< [] is a scalar
  std::uint64_t begin = 0;          ///< offsets into the byte buffer
  std::uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;  ///< in the order of their data
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;  ///< file offset of the byte buffer: 8 + N
};

inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

/// Bytes of a dtype name, 0 for one the format does not define.
std::size_t safetensors_dtype_bytes(std::string_view dtype);

/// N from the file's first 8 bytes. Throws CheckpointError naming `source` when `first_bytes` is
/// shorter than 8 or N exceeds the limit or the file (`file_size`).
std::uint64_t safetensors_header_length(std::string_view first_bytes, std::uint64_t file_size, std::string_view source);

/// Parses and checks the header. `file_start` holds at least the first 8 + N bytes of a file of
/// `file_size` bytes. Throws CheckpointError naming `source` and the tensor for anything the
/// format does not allow (bad JSON, unknown dtype, negative dimension, offsets that disagree with
/// the shape, overlap, holes, data past the end of the file).
SafetensorsHeader parse_safetensors_header(std::string_view file_start, std::uint64_t file_size,
                                           std::string_view source);

}  // namespace jetchar::experiments
