#include "loaders/idx.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <fstream>

#include "sysfs/error.h"

namespace jetchar::loaders {
namespace {

using sysfs::FormatError;
using U128 = unsigned __int128;

std::uint32_t big_endian_u32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

bool is_known_type(std::uint8_t type) {
  switch (type) {
    case 0x08:
    case 0x09:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x0E: return true;
    default: return false;
  }
}

}  // namespace

std::size_t idx_element_bytes(IdxType type) {
  switch (type) {
    case IdxType::kU8:
    case IdxType::kI8: return 1;
    case IdxType::kI16: return 2;
    case IdxType::kI32:
    case IdxType::kF32: return 4;
    case IdxType::kF64: return 8;
  }
  return 1;
}

std::uint64_t IdxHeader::item_bytes() const {
  std::uint64_t bytes = idx_element_bytes(type);
  for (std::size_t i = 1; i < dims.size(); ++i) bytes *= dims[i];
  return bytes;
}

IdxHeader parse_idx_header(std::span<const std::uint8_t> bytes, std::uint64_t file_bytes, const std::string& name) {
  if (bytes.size() < 4 || file_bytes < 4) {
    throw FormatError(name, fmt::format("{} bytes", file_bytes), "an IDX file of at least 4 bytes (magic number)");
  }
  // No IDX file has more than a few dimensions (MNIST's have 1 to 3): a larger count is not a
  // header, and its "shape" would be hundreds of numbers long.
  constexpr std::uint8_t kMaxDims = 8;
  if (bytes[0] != 0 || bytes[1] != 0 || !is_known_type(bytes[2]) || bytes[3] == 0 || bytes[3] > kMaxDims) {
    throw FormatError(fmt::format("{} offset 0", name),
                      fmt::format("magic {:02x} {:02x} {:02x} {:02x}", bytes[0], bytes[1], bytes[2], bytes[3]),
                      "IDX magic 00 00 <type 08|09|0b|0c|0d|0e> <ndims 1..8>");
  }
  IdxHeader header;
  header.type = static_cast<IdxType>(bytes[2]);
  const std::size_t ndims = bytes[3];
  header.data_offset = 4 + 4 * ndims;
  if (bytes.size() < header.data_offset || file_bytes < header.data_offset) {
    throw FormatError(fmt::format("{} offset 4", name), fmt::format("{} bytes", file_bytes),
                      fmt::format("{} dimension sizes (header of {} bytes)", ndims, header.data_offset));
  }
  header.dims.reserve(ndims);
  // Each dimension is < 2^32, so up to 4 dimensions the product fits in 128 bits; check as we go.
  U128 total = idx_element_bytes(header.type);
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::uint32_t dim = big_endian_u32(bytes.data() + 4 + 4 * i);
    header.dims.push_back(dim);
    total *= dim;
    if (total > (U128{1} << 62)) total = U128{1} << 62;  // saturate: mismatch below
  }
  const U128 expected = total + header.data_offset;
  if (expected != file_bytes) {
    std::string shape;
    for (auto dim : header.dims) shape += fmt::format("{}{}", shape.empty() ? "" : "x", dim);
    throw FormatError(
        fmt::format("{} offset {}", name, header.data_offset),
        fmt::format("{} data bytes", file_bytes - header.data_offset),
        fmt::format("{} bytes for shape {} (truncated or trailing data)", static_cast<std::uint64_t>(total), shape));
  }
  return header;
}

std::vector<std::uint8_t> gunzip(std::span<const std::uint8_t> compressed, const std::string& name) {
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip wrapper (not raw zlib).
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("zlib inflateInit2 failed");
  std::vector<std::uint8_t> out;
  // Gzip's trailer holds the uncompressed size modulo 2^32: a good first guess for the buffer.
  // Trust it only as far as deflate's maximum ratio (1032:1) allows: a corrupt trailer must not
  // make us allocate gigabytes up front.
  std::size_t guess = compressed.size() * 4;
  if (compressed.size() >= 18) {
    const std::uint8_t* t = compressed.data() + compressed.size() - 4;
    const std::size_t trailer =
        std::uint32_t{t[0]} | (std::uint32_t{t[1]} << 8) | (std::uint32_t{t[2]} << 16) | (std::uint32_t{t[3]} << 24);
    guess = std::min(trailer, compressed.size() * 1032);
  }
  out.resize(std::min<std::size_t>(guess, std::size_t{1} << 28) + 1);
  stream.next_in = const_cast<Bytef*>(compressed.data());
  stream.avail_in = static_cast<uInt>(compressed.size());
  int status = Z_OK;
  while (true) {
    if (stream.total_out == out.size()) out.resize(out.size() * 2);
    stream.next_out = out.data() + stream.total_out;
    stream.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - stream.total_out, 1U << 30));
    status = inflate(&stream, Z_NO_FLUSH);
    if (status == Z_STREAM_END) break;
    if (status == Z_OK) continue;
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // input ended mid-stream
    if (status == Z_BUF_ERROR) continue;
    break;
  }
  const std::uint64_t offset = stream.total_in;
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    const bool truncated = status == Z_OK || status == Z_BUF_ERROR;
    throw FormatError(fmt::format("{} compressed offset {}", name, offset),
                      truncated ? "end of data" : fmt::format("zlib error {} {}", status, message),
                      truncated ? "a complete gzip stream (file is truncated)" : "a valid gzip stream");
  }
  out.resize(stream.total_out);
  return out;
}

std::vector<std::uint8_t> read_maybe_gzip(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw sysfs::IoError(path.string(), "open", errno);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  std::vector<std::uint8_t> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    throw sysfs::IoError(path.string(), "read", errno);
  }
  if (path.extension() == ".gz") return gunzip(bytes, path.string());
  return bytes;
}

}  // namespace jetchar::loaders
