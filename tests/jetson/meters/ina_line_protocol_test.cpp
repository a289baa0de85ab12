#include "jetson/meters/ina_line_protocol.h"

#include <gtest/gtest.h>

namespace jetchar::jetson::meters {
namespace {

TEST(InaLineProtocol, ParsesTheDocumentedExample) {
  const auto line = parse_ina_line("1042,5210000,5012.5,812.25,1\r");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->sequence, 1042u);
  EXPECT_EQ(line->device_time_us, 5210000u);
  EXPECT_DOUBLE_EQ(line->bus_mv, 5012.5);
  EXPECT_DOUBLE_EQ(line->current_ma, 812.25);
  EXPECT_EQ(line->marker, true);
  EXPECT_DOUBLE_EQ(line->power_mw(), 5012.5 * 812.25 / 1000.0);
  const auto no_marker = parse_ina_line("1,2,5000,-3.5");
  ASSERT_TRUE(no_marker);
  EXPECT_FALSE(no_marker->marker);
  EXPECT_DOUBLE_EQ(no_marker->current_ma, -3.5);
}

TEST(InaLineProtocol, RejectsMalformedLinesAndSkipsComments) {
  EXPECT_FALSE(parse_ina_line("# INA226 logger v1"));
  EXPECT_TRUE(is_ina_comment("# INA226 logger v1"));
  EXPECT_FALSE(parse_ina_line("1,2,3"));
  EXPECT_FALSE(parse_ina_line("1,2,3,4,5,6"));
  EXPECT_FALSE(parse_ina_line("1,2,3,4,2"));
  EXPECT_FALSE(parse_ina_line("-1,2,3,4"));
  EXPECT_FALSE(parse_ina_line("1,2,-3,4"));
  EXPECT_FALSE(parse_ina_line("1,2,nan,4"));
  EXPECT_FALSE(parse_ina_line("1,2,3,4x"));
  EXPECT_FALSE(parse_ina_line(""));
}

TEST(InaLineProtocol, FormatRoundTrips) {
  InaLine line{7, 123456, 19000.25, 600.125, false};
  const auto back = parse_ina_line(format_ina_line(line));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sequence, 7u);
  EXPECT_DOUBLE_EQ(back->bus_mv, 19000.25);
  EXPECT_DOUBLE_EQ(back->current_ma, 600.125);
  EXPECT_EQ(back->marker, false);
}

}  // namespace
}  // namespace jetchar::jetson::meters
