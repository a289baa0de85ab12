#include "jetson/meters/um_protocol.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::meters {
namespace {

TEST(UmProtocol, Um25cScalingIsFinerThanUm34c) {
  UmFrame frame;
  frame.model = UmModel::kUm25c;
  frame.voltage_mv = 5123;
  frame.current_ma = 812.3;
  frame.power_mw = 4161;
  frame.temperature_c = 28;
  auto bytes = encode_um_frame(frame);
  EXPECT_EQ(bytes[0], 0x09);
  EXPECT_EQ(bytes[1], 0xC9);
  // 5123 mV as /1000 V counts; 812.3 mA as /10000 A counts.
  EXPECT_EQ((bytes[2] << 8) | bytes[3], 5123);
  EXPECT_EQ((bytes[4] << 8) | bytes[5], 8123);
  EXPECT_EQ((bytes[128] << 8) | bytes[129], 0xFFF1);
  const auto decoded = parse_um_frame(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_DOUBLE_EQ(decoded->voltage_mv, 5123);
  EXPECT_DOUBLE_EQ(decoded->current_ma, 812.3);
  EXPECT_DOUBLE_EQ(decoded->power_mw, 4161);
  EXPECT_EQ(decoded->temperature_c, 28);

  frame.model = UmModel::kUm34c;
  bytes = encode_um_frame(frame);
  EXPECT_EQ((bytes[2] << 8) | bytes[3], 512);  // 10 mV counts
  EXPECT_EQ((bytes[4] << 8) | bytes[5], 812);  // 1 mA counts
  const auto um34 = parse_um_frame(bytes);
  ASSERT_TRUE(um34);
  EXPECT_DOUBLE_EQ(um34->voltage_mv, 5120);
  EXPECT_DOUBLE_EQ(um34->current_ma, 812);
}

TEST(UmProtocol, RejectsBadTrailerChecksumAndUnknownModel) {
  UmFrame frame;
  frame.model = UmModel::kUm34c;
  frame.voltage_mv = 5000;
  auto bytes = encode_um_frame(frame);
  ASSERT_TRUE(parse_um_frame(bytes));
  bytes[3] ^= 0x01;  // position 3 is covered by the UM34C checksum
  EXPECT_FALSE(parse_um_frame(bytes));
  frame.model = UmModel::kUm24c;
  bytes = encode_um_frame(frame);
  bytes[129] = 0xF2;
  EXPECT_FALSE(parse_um_frame(bytes));
  bytes = encode_um_frame(frame);
  bytes[0] = 0x12;
  EXPECT_FALSE(parse_um_frame(bytes));
  EXPECT_FALSE(parse_um_frame(std::span(bytes).first(129)));
}

TEST(UmProtocol, AssemblerReassemblesSplitFramesAndSkipsNoise) {
  UmFrame frame;
  frame.model = UmModel::kUm25c;
  frame.voltage_mv = 5000;
  frame.power_mw = 2500;
  const auto bytes = encode_um_frame(frame);
  std::vector<std::uint8_t> stream = {0x00, 0x09, 0x13, 0x37};  // noise, including a lone 0x09
  stream.insert(stream.end(), bytes.begin(), bytes.end());
  stream.insert(stream.end(), bytes.begin(), bytes.begin() + 50);  // a cut-off frame
  stream.insert(stream.end(), bytes.begin(), bytes.end());
  UmFrameAssembler assembler;
  std::vector<UmFrame> frames;
  for (std::size_t at = 0; at < stream.size(); at += 17) {
    assembler.feed(std::span(stream).subspan(at, std::min<std::size_t>(17, stream.size() - at)), frames);
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_DOUBLE_EQ(frames[1].power_mw, 2500);
  EXPECT_GT(assembler.stats().garbage_bytes, 4u);
  EXPECT_EQ(assembler.stats().frames, 2u);
}

TEST(UmProtocol, ModelNames) {
  EXPECT_EQ(um_model_from_name("UM34C"), UmModel::kUm34c);
  EXPECT_FALSE(um_model_from_name("um99"));
  EXPECT_EQ(um_model_name(UmModel::kUm24c), "UM24C");
}

}  // namespace
}  // namespace jetchar::jetson::meters
