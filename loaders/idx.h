// MNIST IDX files (raw or gzip-compressed): header parsing and validation on plain bytes, no
// tensors, so the parser is fuzzed and tested without LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace jetchar::loaders {

/// IDX element types (third magic byte).
enum class IdxType : std::uint8_t { kU8 = 0x08, kI8 = 0x09, kI16 = 0x0B, kI32 = 0x0C, kF32 = 0x0D, kF64 = 0x0E };

std::size_t idx_element_bytes(IdxType type);

struct IdxHeader {
  IdxType type = IdxType::kU8;
  std::vector<std::uint32_t> dims;  ///< dims[0] = number of items
  std::size_t data_offset = 0;      ///< 4 + 4 * dims.size()
  /// Bytes of one item (product of dims[1..] times the element size).
  std::uint64_t item_bytes() const;
  std::uint64_t data_bytes() const { return item_bytes() * (dims.empty() ? 0 : dims[0]); }
};

/// Parses and validates the header of an IDX file whose total size is `file_bytes`: magic bytes,
/// type, dimension count, and that the data fits exactly. `bytes` holds at least the header.
/// Throws sysfs::FormatError naming `name` (the file), the offset and the value.
IdxHeader parse_idx_header(std::span<const std::uint8_t> bytes, std::uint64_t file_bytes, const std::string& name);

/// Reads a whole file; a `.gz` name is decompressed through zlib (truncated or corrupt streams
/// are reported with the file name and the compressed offset). Throws sysfs::IoError/FormatError.
std::vector<std::uint8_t> read_maybe_gzip(const std::filesystem::path& path);

/// Decompresses a gzip stream held in memory (`name` is used in errors).
std::vector<std::uint8_t> gunzip(std::span<const std::uint8_t> compressed, const std::string& name);

}  // namespace jetchar::loaders
