#include "jetson/meters/watts_up_protocol.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::meters {
namespace {

TEST(WattsUpProtocol, DecodesARealRecord) {
  // A capture used by public clients: 35.6 W, 230.0 V, 0.186 A.
  const auto packet = parse_watts_up_packet("#d,-,18,356,2300,186,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_;");
  ASSERT_TRUE(packet);
  EXPECT_EQ(packet->command, 'd');
  EXPECT_EQ(packet->subcommand, "-");
  ASSERT_EQ(packet->args.size(), 18u);
  const auto record = decode_watts_up_record(*packet);
  ASSERT_TRUE(record);
  EXPECT_DOUBLE_EQ(*record->power_mw, 35600.0);
  EXPECT_DOUBLE_EQ(*record->voltage_mv, 230000.0);
  EXPECT_DOUBLE_EQ(*record->current_ma, 186.0);
}

TEST(WattsUpProtocol, UnloggedFieldsAreMissingNotZero) {
  const auto packet = parse_watts_up_packet("#d,-,18,356,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_,_;");
  ASSERT_TRUE(packet);
  const auto record = decode_watts_up_record(*packet);
  ASSERT_TRUE(record);
  EXPECT_TRUE(record->power_mw);
  EXPECT_FALSE(record->voltage_mv);
  EXPECT_FALSE(record->current_ma);
}

TEST(WattsUpProtocol, IgnoresLineBreaksInsidePacketsAndRejectsMalformedOnes) {
  EXPECT_TRUE(parse_watts_up_packet("#d,-,3,\r\n1,2,\t3;"));
  EXPECT_FALSE(parse_watts_up_packet("#d,-,4,1,2,3;"));  // count mismatch
  EXPECT_FALSE(parse_watts_up_packet("d,-,3,1,2,3;"));   // no '#'
  EXPECT_FALSE(parse_watts_up_packet("#d,-,3,1,2,3"));   // no ';'
  EXPECT_FALSE(parse_watts_up_packet("#dd,-,0;"));       // command is one letter
  EXPECT_FALSE(parse_watts_up_packet("#d,-,x;"));
  const auto bad_number = parse_watts_up_packet("#d,-,3,35x,2300,1;");
  ASSERT_TRUE(bad_number);
  EXPECT_FALSE(decode_watts_up_record(*bad_number));
  const auto version = parse_watts_up_packet("#v,-,8,1,1,2,0,3,23,0,0;");
  ASSERT_TRUE(version);
  EXPECT_FALSE(decode_watts_up_record(*version));
}

TEST(WattsUpProtocol, CommandsAndRecordsRoundTrip) {
  EXPECT_EQ(watts_up_start_logging_command(1), "#L,W,3,E,,1;");
  const std::string record = format_watts_up_record(12345.0, 5000.0, 2469.0);
  const auto packet = parse_watts_up_packet(record.substr(0, record.find(';') + 1));
  ASSERT_TRUE(packet);
  const auto decoded = decode_watts_up_record(*packet);
  ASSERT_TRUE(decoded);
  EXPECT_DOUBLE_EQ(*decoded->power_mw, 12300.0);  // deci-watt resolution
  EXPECT_DOUBLE_EQ(*decoded->voltage_mv, 5000.0);
}

TEST(WattsUpProtocol, SplitterResynchronisesAfterCutPackets) {
  WattsUpPacketSplitter splitter;
  std::vector<std::string> packets;
  splitter.feed("WattsUp banner\r\n#d,-,3,1", packets);
  EXPECT_TRUE(packets.empty());
  splitter.feed("00,2,3;junk#d,-,3,4", packets);  // second packet cut off by a new '#'
  splitter.feed("#d,-,3,5,6,7;", packets);
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[0], "#d,-,3,100,2,3;");
  EXPECT_EQ(packets[1], "#d,-,3,5,6,7;");
  // The cut-off packet is the damage; "junk" and the banner lie outside packets and are ignored.
  EXPECT_EQ(splitter.stats().bad_frames, 1u);
  EXPECT_EQ(splitter.stats().garbage_bytes, std::string("#d,-,3,4").size());
  // An endless packet is dropped rather than growing memory.
  splitter.feed("#" + std::string(2000, '1'), packets);
  EXPECT_EQ(splitter.stats().bad_frames, 2u);
}

// The protocol's framing (Serial Data Format, section I.3, in the Watts Up? Communications
// Protocol; text in CPAN WattsUp-Daemon-0.4 doc/wattsup_spec_v442.txt): "All characters outside of
// a packet are ignored. Packets begin with a pound sign "#" and end with a semicolon ";"." A
// meter's banner and the CR LF after each record are outside packets: a stream of them, as the
// simulator writes it, is no damage at all (it once flagged every interval as a gap).
TEST(WattsUpProtocol, BytesOutsidePacketsAreIgnoredNotGarbage) {
  WattsUpPacketSplitter splitter;
  std::vector<std::string> packets;
  splitter.feed("WattsUp.NET $ Version: 3.23 $ jetchar simulator 60Hz 120V\r\n", packets);
  for (int i = 0; i < 5; ++i) splitter.feed(format_watts_up_record(35600.0 + i * 100, 230000.0, 155.0), packets);
  ASSERT_EQ(packets.size(), 5u);
  for (const auto& packet : packets) EXPECT_TRUE(parse_watts_up_packet(packet)) << packet;
  EXPECT_EQ(splitter.stats().bad_frames, 0u);
  EXPECT_EQ(splitter.stats().garbage_bytes, 0u);
}

TEST(WattsUpProtocol, APacketThatLostItsStartIsABadFrame) {
  WattsUpPacketSplitter splitter;
  std::vector<std::string> packets;
  // "#d,-,18,356,..." with its '#' lost on the line: the tail up to ';' is what is left of it.
  splitter.feed("#d,-,3,1,2,3;\r\nd,-,3,4,5,6;\r\n#d,-,3,7,8,9;\r\n", packets);
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[1], "#d,-,3,7,8,9;");
  EXPECT_EQ(splitter.stats().bad_frames, 1u);
  EXPECT_EQ(splitter.stats().garbage_bytes, std::string("d,-,3,4,5,6;").size());
}

}  // namespace
}  // namespace jetchar::jetson::meters
