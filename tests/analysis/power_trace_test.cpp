#include "analysis/power_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/input_error.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;

TEST(PowerTrace, ReadsSamplesAndMarkers) {
  auto s = parse_power_trace("t_s,power_w,marker\n0,5.5,epoch_start\n0.1,7,\n0.2,9,compute\n", "t.csv");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].marker, "epoch_start");
  EXPECT_FALSE(s[1].marker);
  EXPECT_DOUBLE_EQ(s[2].power_w, 9);
  EXPECT_EQ(parse_power_trace("power_w,t_s\n1,2\n", "t.csv").at(0).t_s, 2);
}

TEST(PowerTrace, ErrorsNameTheProblem) {
  auto message = [](const std::string& text) {
    try {
      parse_power_trace(text, "t.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("t,power_w\n1,2\n"), HasSubstr("t.csv:1: needs the columns t_s and power_w"));
  EXPECT_THAT(message("t_s,power_w\n1,x\n"), HasSubstr("t.csv:2: column 'power_w': 'x' is not a number"));
  EXPECT_THAT(message("t_s,power_w\n1,-2\n"), HasSubstr("t.csv:2: column 'power_w': -2 is negative"));
  EXPECT_THAT(message("t_s,power_w\n1,2\n0.5,2\n"),
              HasSubstr("t.csv:3: column 't_s': 0.5 is earlier than the previous sample"));
  EXPECT_THAT(message("t_s,power_w\n"), HasSubstr("t.csv: has no samples"));
}

}  // namespace
}  // namespace jetchar::analysis
