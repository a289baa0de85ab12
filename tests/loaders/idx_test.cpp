#include "loaders/idx.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sysfs/error.h"
#include "tests/loaders/data_file_bytes.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

using jetchar::testing::TempDir;

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(IdxHeader, ParsesImagesHeader) {
  const std::string file = idx_images(3, 28, 28);
  const IdxHeader header = parse_idx_header(bytes_of(file), file.size(), "x");
  EXPECT_EQ(header.type, IdxType::kU8);
  ASSERT_EQ(header.dims.size(), 3U);
  EXPECT_EQ(header.dims[0], 3U);
  EXPECT_EQ(header.data_offset, 16U);
  EXPECT_EQ(header.item_bytes(), 784U);
}

TEST(IdxHeader, RejectsWrongMagicNamingFileAndOffset) {
  std::string file = idx_images(1, 2, 2);
  file[0] = 1;
  try {
    parse_idx_header(bytes_of(file), file.size(), "images.idx");
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("images.idx offset 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("magic 01 00 08 03"), std::string::npos) << e.what();
  }
}

TEST(IdxHeader, RejectsTruncatedAndTrailingData) {
  const std::string file = idx_images(2, 3, 3);
  const std::string truncated = file.substr(0, file.size() - 1);
  EXPECT_THROW(parse_idx_header(bytes_of(truncated), truncated.size(), "t"), sysfs::FormatError);
  const std::string longer = file + "x";
  EXPECT_THROW(parse_idx_header(bytes_of(longer), longer.size(), "t"), sysfs::FormatError);
  const std::string header_only = file.substr(0, 10);
  EXPECT_THROW(parse_idx_header(bytes_of(header_only), header_only.size(), "t"), sysfs::FormatError);
}

TEST(IdxHeader, HugeDimensionsDoNotOverflow) {
  const std::string file = be32(0x00000D04) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF);
  EXPECT_THROW(parse_idx_header(bytes_of(file), file.size(), "big"), sysfs::FormatError);
}

// A count byte of 255 is no IDX header: refused at the magic, with a short message (its "shape" of
// 255 numbers once ran to 1,290 characters).
TEST(IdxHeader, AHeaderOfMoreThanEightDimensionsIsRefusedAtItsMagic) {
  std::string file = be32(0x000008FF);
  for (int i = 0; i < 255; ++i) file += be32(1);
  try {
    parse_idx_header(bytes_of(file), file.size(), "many.idx");
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("magic 00 00 08 ff"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("<ndims 1..8>"), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 200U) << e.what();
  }
}

TEST(Gunzip, RoundTrip) {
  TempDir dir;
  const std::string content = idx_images(5, 4, 4);
  write_gzip(dir.path() / "a.gz", content);
  const auto inflated = read_maybe_gzip(dir.path() / "a.gz");
  EXPECT_EQ(std::string(inflated.begin(), inflated.end()), content);
}

TEST(Gunzip, TruncatedStreamNamesFile) {
  TempDir dir;
  write_gzip(dir.path() / "a.gz", idx_images(50, 8, 8));
  std::filesystem::resize_file(dir.path() / "a.gz", std::filesystem::file_size(dir.path() / "a.gz") / 2);
  try {
    read_maybe_gzip(dir.path() / "a.gz");
    FAIL() << "no error";
  } catch (const sysfs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("a.gz compressed offset"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jetchar::loaders
