#include "experiments/checkpoints/safetensors_header.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "experiments/checkpoints/checkpoint_error.h"

namespace jetchar::experiments {
namespace {

using ::testing::HasSubstr;

// A file as the format lays it out: 8-byte little-endian N, N bytes of JSON, `data_bytes` of data.
std::string file_with(const std::string& header, std::size_t data_bytes) {
  std::string file(8, '\0');
  auto n = static_cast<std::uint64_t>(header.size());
  for (int i = 0; i < 8; ++i) file[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return file + header + std::string(data_bytes, '\x01');
}

SafetensorsHeader parse(const std::string& file) {
  return parse_safetensors_header(file, file.size(), "t.safetensors");
}

std::string error_of(const std::string& file) {
  try {
    parse(file);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SafetensorsHeaderTest, ReadsTensorsInDataOrderWithMetadataAndPadding) {
  const auto file =
      file_with(R"({"b":{"dtype":"I64","shape":[],"data_offsets":[24,32]},"__metadata__":{"format":"pt"},)"
                R"("a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}   )",
                32);
  const auto header = parse(file);
  ASSERT_EQ(header.tensors.size(), 2u);
  EXPECT_EQ(header.tensors[0].name, "a");
  EXPECT_EQ(header.tensors[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(header.tensors[0].element_bytes, 4u);
  EXPECT_EQ(header.tensors[1].name, "b");
  EXPECT_TRUE(header.tensors[1].shape.empty());
  EXPECT_EQ(header.tensors[1].begin, 24u);
  EXPECT_EQ(header.metadata.at("format"), "pt");
  EXPECT_EQ(header.data_start, file.size() - 32);
}

TEST(SafetensorsHeaderTest, ZeroSizeTensorsSitAtBoundaries) {
  const auto header = parse(file_with(R"({"e":{"dtype":"F16","shape":[0,4],"data_offsets":[0,0]},)"
                                      R"("h":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}})",
                                      2));
  EXPECT_EQ(header.tensors.size(), 2u);
}

TEST(SafetensorsHeaderTest, RefusesWhatTheFormatDoesNotAllow) {
  EXPECT_THAT(error_of("abc"), HasSubstr("8-byte header length"));
  std::string huge = file_with("{}", 0);
  huge[7] = '\x7f';
  EXPECT_THAT(error_of(huge), HasSubstr("exceeds the format's limit"));
  auto longer = file_with("{}", 0);
  longer[0] = 9;
  EXPECT_THAT(error_of(longer), HasSubstr("header length 9 exceeds the 2 bytes"));
  EXPECT_THAT(error_of(file_with("[1]", 0)), HasSubstr("does not start with '{'"));
  EXPECT_THAT(error_of(file_with("{\"a\":", 0)), HasSubstr("not JSON"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}})", 1)),
              HasSubstr("tensor 'w' has dtype 'F8'; valid: F64"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4)),
              HasSubstr("tensor 'w' has shape [-1]"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4)),
              HasSubstr("tensor 'w': data_offsets [0, 4] do not hold its 2 F32 elements"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8)),
              HasSubstr("tensor 'w' starts at byte 4 of the data, but the tensors before it end at 0 (hole)"));
  EXPECT_THAT(error_of(file_with(R"({"v":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                 8)),
              HasSubstr("(overlap)"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 6)),
              HasSubstr("the tensors cover 4 bytes of data, but the file holds 6"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 2)),
              HasSubstr("cover 4 bytes of data, but the file holds 2"));
  EXPECT_THAT(error_of(file_with(R"({"__metadata__":{"n":1}})", 0)), HasSubstr("value of 'n' is not a string"));
  EXPECT_THAT(error_of(file_with(R"({"w":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}})", 0)),
              HasSubstr("too many elements"));
}

}  // namespace
}  // namespace jetchar::experiments
