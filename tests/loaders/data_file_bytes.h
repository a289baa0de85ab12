// Bytes of the data-file formats the loader tests write: big-endian IDX headers, gzip, raw bytes,
// solid RGB images; and the message a call's FormatError carries. Shared by the loader tests,
// which compile several to a translation unit (one definition each).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sysfs/error.h"

namespace jetchar::loaders {

/// A 32-bit big-endian integer, as IDX headers store their magic and dimensions.
inline std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

/// An IDX file of `n` unsigned-byte images of rows x cols, pixel i holding (7 i) mod 256.
inline std::string idx_images(int n, int rows, int cols) {
  std::string bytes = be32(0x803) + be32(n) + be32(rows) + be32(cols);
  for (int i = 0; i < n * rows * cols; ++i) bytes.push_back(static_cast<char>((i * 7) % 256));
  return bytes;
}

inline void write_gzip(const std::filesystem::path& path, const std::string& content) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

/// Writes `bytes` to `path`, creating its folders.
inline void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// An h x w image of one colour, RGB interleaved.
inline std::vector<std::uint8_t> solid_rgb(int h, int w, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(h) * w * 3);
  for (std::size_t i = 0; i < rgb.size(); i += 3) {
    rgb[i] = r;
    rgb[i + 1] = g;
    rgb[i + 2] = b;
  }
  return rgb;
}

/// The message of the FormatError `call` throws, or "no error".
template <typename F>
std::string format_error_of(F&& call) {
  try {
    call();
  } catch (const sysfs::FormatError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace jetchar::loaders
