// A session run for a span, as `jetchar monitor` runs it (jetson/measurement/monitored_span.h), on
// a simulated board: every sample inside the span is handed on and none after it, although the
// session samples on while it stops; every reading of the meter is handed on.
#include "jetson/measurement/monitored_span.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "jetson/simulated/simulated_board.h"
#include "tests/jetson/measurement/board_with_meter.h"

namespace jetchar::jetson::measurement {
namespace {

using namespace std::chrono_literals;

TEST(MonitoredSpan, HandsOnEverySampleInsideTheSpanAndNoneAfterIt) {
  SimulatedBoard board("agx-orin-r36");
  MeasurementOptions options;
  options.sample_rate_hz = 200;
  options.onboard_modelled = true;
  MeasurementSession session(board.root(), options);
  std::vector<std::int64_t> handed;  // sample times, on the draining thread until stop()
  MonitoredSpan span(
      session, [&](const TelemetrySample& s) { handed.push_back(s.time_ns); },
      [](const meters::MeterReading&) { ADD_FAILURE() << "no meter here"; });
  span.start(0.15);
  while (span.running()) {
    std::this_thread::sleep_for(span.next_wait(50'000'000));
    span.pump();
  }
  span.end();
  EXPECT_EQ(span.next_wait(50'000'000), 0ms) << "the span has run out";
  span.stop();

  const auto trace = session.onboard().trace();
  std::size_t inside = 0;
  for (std::size_t i = 0; i < trace.size(); ++i) inside += trace.time_ns(i) <= span.end_ns() ? 1 : 0;
  ASSERT_GT(inside, 1u);
  EXPECT_EQ(handed.size(), inside);
  for (const auto t : handed) {
    EXPECT_GE(t, span.begin_ns());
    EXPECT_LE(t, span.end_ns());
  }
  // The duration counts from where sampling starts.
  EXPECT_GE(span.end_ns(), span.begin_ns() + 150'000'000);
}

TEST(MonitoredSpan, AnOpenEndedSpanRunsUntilItIsEndedAndHandsOnTheMetersReadings) {
  const testing::BoardWithMeter setting;
  MeasurementSession session(setting.board.root(), setting.options(100));
  std::size_t samples = 0;
  std::vector<meters::MeterReading> readings;
  MonitoredSpan span(
      session, [&](const TelemetrySample&) { ++samples; },
      [&](const meters::MeterReading& r) { readings.push_back(r); });
  span.start(0);
  EXPECT_EQ(span.end_ns(), INT64_MAX);
  EXPECT_TRUE(span.running());
  EXPECT_EQ(span.next_wait(1'500'000), 2ms) << "the period, rounded up to whole milliseconds";
  std::this_thread::sleep_for(200ms);
  span.pump();
  span.end();
  EXPECT_FALSE(span.running());
  span.stop();
  EXPECT_GT(samples, 0u);
  EXPECT_FALSE(readings.empty());
  EXPECT_EQ(readings.size(), session.meters().received(0)) << "every reading drained is handed on";
  for (const auto& r : readings) EXPECT_TRUE(r.power_mw);
}

}  // namespace
}  // namespace jetchar::jetson::measurement
