#include "jetson/meters/synthetic_power_trace.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace jetchar::jetson::meters {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(SyntheticPowerTrace, ExactEnergyOverPeriodsAndPartialSegments) {
  const auto trace = SyntheticPowerTrace::standard(5000);
  // One period: 0.8·3000 + 0.2·6000 + 1.0·9000 + 0.001·7000 + 0.999·5500 + 0.8·4500 + 0.2·3000
  const double period_mj = 2400 + 1200 + 9000 + 7 + 5494.5 + 3600 + 600;
  EXPECT_NEAR(trace.energy_mj(0, 4000 * kMs), period_mj, 1e-9);
  EXPECT_NEAR(trace.energy_mj(0, 12000 * kMs), 3 * period_mj, 1e-9);
  EXPECT_NEAR(trace.energy_mj(900 * kMs, 1500 * kMs), 0.1 * 7500 + 0.5 * 9000, 1e-9);
  EXPECT_NEAR(trace.energy_mj(4900 * kMs, 5500 * kMs), 0.1 * 7500 + 0.5 * 9000, 1e-9);
  EXPECT_NEAR(trace.energy_mj(-4000 * kMs, 0), period_mj, 1e-9);
  EXPECT_DOUBLE_EQ(trace.power_mw(900 * kMs), 6000);
  EXPECT_DOUBLE_EQ(trace.power_mw(4900 * kMs), 6000);
  EXPECT_DOUBLE_EQ(trace.current_ma(1500 * kMs), 1800);
  EXPECT_NEAR(trace.average_mw(1000 * kMs, 2000 * kMs), 9000, 1e-9);
}

TEST(SyntheticPowerTrace, ReadsCsvAndNamesBadLines) {
  testing::TempDir dir;
  const auto good = dir.write("t.csv", "# t_s,power_mw\n0,1000\n0.5,3000\n1.0,1000\n");
  const auto trace = SyntheticPowerTrace::from_csv(good, 12000);
  EXPECT_NEAR(trace.energy_mj(0, 1000 * kMs), 2000.0, 1e-9);
  const auto bad = dir.write("bad.csv", "0,1000\n0.5;3000\n");
  try {
    SyntheticPowerTrace::from_csv(bad, 12000);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(SyntheticPowerTrace::from_csv(dir.write("one.csv", "0,1\n"), 1), std::invalid_argument);
  // The header the help names is a header; another one names what is wrong instead of claiming
  // that "'t_s,power_mw' is not 't_s,power_mw'".
  const auto with_header = SyntheticPowerTrace::from_csv(dir.write("h.csv", "t_s,power_mw\n0,1000\n1.0,1000\n"), 12000);
  EXPECT_NEAR(with_header.energy_mj(0, 1000 * kMs), 1000.0, 1e-9);
  try {
    SyntheticPowerTrace::from_csv(dir.write("w.csv", "t_s,power_w\n0,1\n1,1\n"), 12000);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("w.csv:1: header 't_s,power_w' names other columns"), std::string::npos)
        << e.what();
  }
  try {
    SyntheticPowerTrace::from_csv(dir.write("v.csv", "t_s,power_mw\n0,abc\n"), 12000);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("v.csv:2: '0,abc' is not a breakpoint"), std::string::npos) << e.what();
  }
  EXPECT_THROW(SyntheticPowerTrace::from_csv(dir.path() / "missing.csv", 1), std::invalid_argument);
  EXPECT_THROW(SyntheticPowerTrace({{0, 1}, {0, 2}}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::jetson::meters
