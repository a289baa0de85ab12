// The live view `jetchar monitor` prints (jetson/telemetry/live_telemetry_line.h): which sample is
// shown when, on a terminal and off one, for samples with known times.
#include "jetson/telemetry/live_telemetry_line.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace jetchar::jetson {
namespace {

constexpr std::int64_t kT0 = 5'000'000'000;  // the monitor's start on the monotonic clock
constexpr std::int64_t kMs = 1'000'000;

TelemetryLayout one_rail() {
  TelemetryLayout layout;
  layout.fields.push_back({"VDD_IN.power_mw", "mW", FieldGroup::kRail, 0});
  layout.rails.push_back({"VDD_IN", energy::RailRole::kBoardInput, std::nullopt, std::nullopt, 0, false});
  return layout;
}

TelemetrySample sample_at(std::int64_t t_ns, double power_mw) {
  TelemetrySample s;
  s.time_ns = t_ns;
  s.values.push_back({power_mw, field_flags::kValid});
  return s;
}

// The line is TelemetryLineFormatter's, which writes each rail as " NAME POWERmW".
TEST(LiveTelemetryLine, OffATerminalPrintsOneLinePerSecondWithItsTime) {
  const auto layout = one_rail();
  LiveTelemetryLine live(layout, /*tty=*/false, /*quiet=*/false, kT0);
  EXPECT_EQ(live.show(false), "") << "nothing sampled yet";
  live.sample(sample_at(kT0 + 100 * kMs, 4000));
  EXPECT_EQ(live.show(false), "") << "its second has not come";
  live.sample(sample_at(kT0 + 1000 * kMs, 4100));
  EXPECT_EQ(live.show(false), "1.000  VDD_IN 4100mW\n");
  live.sample(sample_at(kT0 + 1500 * kMs, 4200));
  EXPECT_EQ(live.show(false), "");
  live.sample(sample_at(kT0 + 2100 * kMs, 4300));
  EXPECT_EQ(live.show(false), "2.100  VDD_IN 4300mW\n");
  EXPECT_EQ(live.show(false), "") << "shown already";
  live.sample(sample_at(kT0 + 2200 * kMs, 4400));
  live.meter_power(5123.4);
  EXPECT_EQ(live.show(true), "2.200  VDD_IN 4400mW METER 5123mW\n") << "the last sample is always shown";
  EXPECT_EQ(live.show(true), "") << "and only once";
}

// `monitor --duration 2` off a terminal: the newest sample when the monitor stops is written even
// when a show() before the stop passed it over (its second had not come), so two seconds give two
// lines.
TEST(LiveTelemetryLine, OffATerminalTheLastSampleIsShownEvenWhenPassedOverBefore) {
  const auto layout = one_rail();
  LiveTelemetryLine live(layout, /*tty=*/false, /*quiet=*/false, kT0);
  live.sample(sample_at(kT0 + 1000 * kMs, 4100));
  EXPECT_EQ(live.show(false), "1.000  VDD_IN 4100mW\n");
  live.sample(sample_at(kT0 + 1900 * kMs, 4200));
  EXPECT_EQ(live.show(false), "");
  EXPECT_EQ(live.show(true), "1.900  VDD_IN 4200mW\n");
  EXPECT_EQ(live.show(true), "");
}

TEST(LiveTelemetryLine, OnATerminalRefreshesOneLineAndEndsIt) {
  const auto layout = one_rail();
  LiveTelemetryLine live(layout, /*tty=*/true, /*quiet=*/false, kT0);
  live.sample(sample_at(kT0 + 100 * kMs, 4000));
  EXPECT_EQ(live.show(false), "\r\033[K VDD_IN 4000mW");
  EXPECT_EQ(live.show(false), "");
  live.meter_power(std::nullopt);  // a reading without power keeps the last (none yet)
  live.sample(sample_at(kT0 + 200 * kMs, 4100));
  EXPECT_EQ(live.show(false), "\r\033[K VDD_IN 4100mW");
  EXPECT_EQ(live.show(true), "\n") << "the final call ends the refreshing line";
}

TEST(LiveTelemetryLine, QuietShowsNothing) {
  const auto layout = one_rail();
  LiveTelemetryLine live(layout, /*tty=*/true, /*quiet=*/true, kT0);
  live.sample(sample_at(kT0 + 2000 * kMs, 4000));
  EXPECT_EQ(live.show(false), "");
  EXPECT_EQ(live.show(true), "");
}

}  // namespace
}  // namespace jetchar::jetson
