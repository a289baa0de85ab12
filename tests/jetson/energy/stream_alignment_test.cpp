#include "jetson/energy/stream_alignment.h"
#include "tests/jetson/energy/nanoseconds.h"

#include <gtest/gtest.h>

#include <random>

namespace jetchar::jetson::energy {
namespace {

TEST(StreamAlignment, MeterClockFitRecoversIntervalAndOriginFromDelayedArrivals) {
  // Meter produces a report every 1.0002 s (drift 200 ppm) from t=5 s; the host sees each after a
  // delay of 20..400 ms, with at least one report delayed by exactly the minimum 20 ms.
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::int64_t> delay(20 * kMs, 400 * kMs);
  std::vector<std::int64_t> receive;
  std::vector<std::uint64_t> seq;
  for (std::uint64_t k = 0; k < 200; ++k) {
    const double produced = 5e9 + 1.0002e9 * static_cast<double>(k);
    receive.push_back(static_cast<std::int64_t>(produced) + (k == 17 ? 20 * kMs : delay(rng)));
    seq.push_back(k);
  }
  const auto fit = fit_meter_clock(receive, seq);
  EXPECT_NEAR(fit.interval_ns, 1.0002e9, 2e6);
  // The envelope sits at the least-delayed report: production + 20 ms, within the slope error.
  EXPECT_NEAR(static_cast<double>(fit.production_time_ns(100)), 5e9 + 1.0002e9 * 100 + 20e6, 60e6);
  EXPECT_LE(fit.max_delay_ns, 400e6);
}

TEST(StreamAlignment, MeterClockFitValidatesInput) {
  std::vector<std::int64_t> t{1, 2};
  std::vector<std::uint64_t> s{1};
  EXPECT_THROW(fit_meter_clock(t, s), std::invalid_argument);
  std::vector<std::uint64_t> backwards{2, 1};
  EXPECT_THROW(fit_meter_clock(t, backwards), std::invalid_argument);
  std::vector<std::int64_t> one{1000};
  std::vector<std::uint64_t> s0{0};
  EXPECT_THROW(fit_meter_clock(one, s0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(fit_meter_clock(one, s0, 5e8).interval_ns, 5e8);
}

TEST(StreamAlignment, CrossCorrelationFindsTheOffsetOfAPowerStep) {
  // Reference: 10 Hz, idle 3 W, burst 9 W from 4 s to 7 s. Meter: its clock reads 1.3 s late and
  // every 0.5 s it reports the average over the preceding 0.5 s, so its samples are placed at the
  // middle of the interval they average (a point sample at the report time would lag by 0.25 s).
  const auto signal = [](double t) { return (t >= 4.0 && t < 7.0) ? 9000.0 : 3000.0; };
  std::vector<std::int64_t> rt, mt;
  std::vector<double> rv, mv;
  for (int i = 0; i <= 120; ++i) {
    rt.push_back(i * 100 * kMs);
    rv.push_back(signal(i * 0.1));
  }
  for (int i = 0; i <= 24; ++i) {
    const double true_t = i * 0.5;
    mt.push_back(static_cast<std::int64_t>((true_t - 0.25 + 1.3) * 1e9));
    mv.push_back(signal(true_t - 0.25));  // the signal is constant over each half-second
  }
  const auto estimate = estimate_offset_xcorr(rt, rv, mt, mv, 3000 * kMs, 50 * kMs);
  ASSERT_TRUE(estimate);
  EXPECT_NEAR(static_cast<double>(estimate->offset_ns), -1.3e9, 100e6);
  EXPECT_GT(estimate->correlation, 0.9);
}

TEST(StreamAlignment, CrossCorrelationNeedsSomethingToCorrelate) {
  std::vector<std::int64_t> t{0, kMs, 2 * kMs};
  std::vector<double> flat{1.0, 1.0, 1.0};
  EXPECT_FALSE(estimate_offset_xcorr(t, flat, t, flat, kMs, kMs / 10));
  EXPECT_THROW(estimate_offset_xcorr(t, flat, t, flat, kMs, 0), std::invalid_argument);
}

TEST(StreamAlignment, MarkerEdgesGiveTheMedianDifference) {
  std::vector<std::int64_t> gpio{1000, 2000, 3000, 4000};
  std::vector<std::int64_t> meter{800, 1795, 2500 /* a glitch */, 3805};
  EXPECT_EQ(offset_from_marker_edges(gpio, meter), 205);
  EXPECT_THROW(offset_from_marker_edges(gpio, {}), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::jetson::energy
