// The one meter alignment policy (jetson/measurement/meter_alignment.h) against simulated meter
// streams whose true clock drift, receive delays and offset are known: a meter whose clock runs
// 200 ppm fast, reports delayed by 0-6 ms on the host, and whose readings show the board's power as
// it was `lag` earlier (its own measurement latency).
#include "jetson/measurement/meter_alignment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "jetson/energy/energy_integrator.h"

namespace jetchar::jetson::measurement {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// The board's true power: a 4 W baseline with steps to 9 W and 6 W at known times.
double true_power_mw(std::int64_t t_ns) {
  const double t_s = static_cast<double>(t_ns) / 1e9;
  if (t_s >= 1.0 && t_s < 1.6) return 9000;
  if (t_s >= 2.4 && t_s < 2.7) return 6000;
  return 4000;
}

// The run's marker: high inside [1.0, 1.6) s and [2.4, 2.7) s, so its edges are the power steps.
bool marker_level(std::int64_t t_ns) { return true_power_mw(t_ns) > 4000; }
const std::vector<std::int64_t> kMarkerEdges = {1000 * kMs, 1600 * kMs, 2400 * kMs, 2700 * kMs};

struct Stream {
  std::int64_t interval_ns = 10 * kMs;
  double drift = 200e-6;           // the meter's clock runs this much fast
  std::int64_t lag_ns = 40 * kMs;  // readings show the power this long before they are produced
  std::int64_t start_ns = 100 * kMs;
  std::size_t count = 2000;    // 20 s: enough reports to see 200 ppm through 0-6 ms of jitter
  bool meter_numbered = true;  // the meter's own sequence (INA line) or the reader's count
  bool echo_marker = false;
};

// Production time of report k on the host clock (the truth the fit must find).
std::int64_t produced_ns(const Stream& s, std::uint64_t k) {
  return s.start_ns + static_cast<std::int64_t>(
                          std::llround(static_cast<double>(s.interval_ns) * (1.0 - s.drift) * static_cast<double>(k)));
}

std::vector<meters::MeterReading> simulate(const Stream& s, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> delay(0, 6 * kMs);
  std::vector<meters::MeterReading> out;
  for (std::uint64_t k = 0; k < s.count; ++k) {
    meters::MeterReading r;
    const std::int64_t p = produced_ns(s, k);
    r.host_time_ns = p + delay(rng);
    r.power_mw = true_power_mw(p - s.lag_ns);
    r.sequence = k;
    if (s.meter_numbered) r.device_time_us = static_cast<std::int64_t>(k) * (s.interval_ns / 1000);
    if (s.echo_marker) r.marker = marker_level(p - s.lag_ns);
    out.push_back(r);
  }
  // Arrival order is what a serial port gives: delays never reorder whole reports.
  for (std::size_t i = 1; i < out.size(); ++i)
    out[i].host_time_ns = std::max(out[i].host_time_ns, out[i - 1].host_time_ns + 1);
  return out;
}

// Measured onboard power: the true power every 5 ms on the host clock (VDD_IN).
energy::PowerTrace onboard_trace() {
  energy::PowerTrace t({{"VDD_IN", energy::RailRole::kBoardInput}});
  for (std::int64_t ns = 0; ns <= 4000 * kMs; ns += 5 * kMs) t.append(ns, {true_power_mw(ns)});
  return t;
}

MeterAlignmentInput input_for(const Stream& s) {
  MeterAlignmentInput in;
  in.name = "ina:/dev/ttyACM0";
  in.nominal_interval_ns = s.interval_ns;
  return in;
}

TEST(MeterAlignment, ClockFitRecoversTheMetersDriftAndProductionTimes) {
  const Stream s;
  const auto a = align_meter(simulate(s), input_for(s));
  ASSERT_TRUE(a.fit);
  EXPECT_EQ(a.clock, "clock fit");
  EXPECT_EQ(a.stretches, 1u);
  // The fitted interval is the true one (200 ppm short of nominal) to within 20 ppm.
  EXPECT_NEAR(a.fit->interval_ns, static_cast<double>(s.interval_ns) * (1 - s.drift),
              20e-6 * static_cast<double>(s.interval_ns));
  // Every report lands within 2 ms of when it was produced (receive delays were 0-6 ms).
  ASSERT_EQ(a.trace.size(), s.count);
  for (std::uint64_t k = 0; k < s.count; ++k) {
    EXPECT_NEAR(static_cast<double>(a.trace.time_ns(k)), static_cast<double>(produced_ns(s, k)), 2.0 * kMs) << k;
  }
  // No marker and no onboard trace: no offset, and the note says why.
  EXPECT_EQ(a.offset_source, OffsetSource::kNone);
  EXPECT_EQ(a.offset_ns, 0);
  EXPECT_NE(a.offset_note.find("no onboard power"), std::string::npos) << a.offset_note;
}

TEST(MeterAlignment, MarkerEdgesGiveTheOffsetWhenTheMeterEchoesThem) {
  Stream s;
  s.echo_marker = true;
  MeterAlignmentInput in = input_for(s);
  in.marker_edges_ns = kMarkerEdges;
  const energy::PowerTrace onboard = onboard_trace();
  in.onboard = &onboard;  // marker edges win over correlation
  const auto a = align_meter(simulate(s), in);
  EXPECT_EQ(a.offset_source, OffsetSource::kMarkerEdges);
  EXPECT_EQ(a.describe(), "clock fit + marker edges");
  // The meter sees each edge `lag` late, quantised to its interval.
  EXPECT_NEAR(static_cast<double>(a.offset_ns), static_cast<double>(-s.lag_ns),
              static_cast<double>(s.interval_ns) + 2.0 * kMs);
}

TEST(MeterAlignment, CorrelationWithMeasuredOnboardPowerGivesTheOffsetAndTheEnergy) {
  const Stream s;
  MeterAlignmentInput in = input_for(s);
  const energy::PowerTrace onboard = onboard_trace();
  in.onboard = &onboard;
  const auto a = align_meter(simulate(s), in);
  ASSERT_EQ(a.offset_source, OffsetSource::kCorrelation) << a.offset_note;
  ASSERT_TRUE(a.correlation);
  EXPECT_GE(a.correlation->correlation, kMinOffsetCorrelation);
  // A meter reporting every 10 ms cannot place a step closer than its interval.
  EXPECT_NEAR(static_cast<double>(a.offset_ns), static_cast<double>(-s.lag_ns), static_cast<double>(s.interval_ns));
  // Aligned, the meter's energy over a window that ends inside the 9 W step is the board's to
  // within what one interval of misplacement costs (5 W x 10 ms of 4.7 J: 1.1 %).
  const auto meter = energy::integrate(a.trace, 0, 500 * kMs, 1300 * kMs);
  const auto board = energy::integrate(onboard, 0, 500 * kMs, 1300 * kMs);
  ASSERT_TRUE(meter.energy_mj && board.energy_mj);
  EXPECT_TRUE(meter.complete);
  EXPECT_NEAR(*meter.energy_mj, *board.energy_mj, 0.012 * *board.energy_mj);
  // Unaligned (no onboard trace), the 40 ms lag costs 5 W x 40 ms: over 3 %.
  const auto unaligned = align_meter(simulate(s), input_for(s));
  const auto off = energy::integrate(unaligned.trace, 0, 500 * kMs, 1300 * kMs);
  EXPECT_GT(std::abs(*off.energy_mj - *board.energy_mj), 0.03 * *board.energy_mj);
}

TEST(MeterAlignment, AWeakCorrelationIsReportedButNotApplied) {
  const Stream s;
  MeterAlignmentInput in = input_for(s);
  // Onboard power unrelated to what the meter saw: a slow ramp.
  energy::PowerTrace unrelated({{"VDD_IN", energy::RailRole::kBoardInput}});
  for (std::int64_t ns = 0; ns <= 4000 * kMs; ns += 5 * kMs)
    unrelated.append(ns, {3000.0 + static_cast<double>(ns) / 1e6});
  in.onboard = &unrelated;
  const auto a = align_meter(simulate(s), in);
  EXPECT_EQ(a.offset_source, OffsetSource::kNone);
  EXPECT_EQ(a.offset_ns, 0);
  EXPECT_NE(a.offset_note.find("correlation"), std::string::npos) << a.offset_note;
  EXPECT_EQ(a.describe(), "clock fit");
}

TEST(MeterAlignment, TheStaleBurstFromTheSerialBufferIsDropped) {
  const Stream s;
  auto readings = simulate(s);
  // Five reports the meter sent before the port was opened arrive together with the first live one.
  std::vector<meters::MeterReading> stale(5);
  for (std::size_t i = 0; i < stale.size(); ++i) {
    stale[i].host_time_ns = readings.front().host_time_ns - 5 + static_cast<std::int64_t>(i);
    stale[i].power_mw = 1.0;
    stale[i].sequence = 0;
  }
  for (auto& r : readings) r.sequence += 5;
  for (std::size_t i = 0; i < stale.size(); ++i) stale[i].sequence = i;
  readings.insert(readings.begin(), stale.begin(), stale.end());
  const auto a = align_meter(readings, input_for(s));
  EXPECT_EQ(a.stale_dropped, 6u);  // the burst and the live report that arrived with it
  ASSERT_TRUE(a.fit);
  EXPECT_NEAR(a.fit->interval_ns, static_cast<double>(s.interval_ns) * (1 - s.drift),
              20e-6 * static_cast<double>(s.interval_ns));
}

TEST(MeterAlignment, AGapSplitsTheFitOnlyWhenTheSequenceIsTheReadersOwnCount) {
  Stream s;
  auto readings = simulate(s);
  // Reports 100..149 are lost; the reader records a gap between 99 and 150.
  const meters::MeterGap gap{readings[99].host_time_ns, readings[150].host_time_ns, "records lost (sequence jump)"};
  readings.erase(readings.begin() + 100, readings.begin() + 150);
  MeterAlignmentInput in = input_for(s);
  const std::vector<meters::MeterGap> gaps = {gap};
  in.gaps = gaps;
  // The meter numbers its reports: one fit spans the gap, and places the reports after it right.
  auto a = align_meter(readings, in);
  EXPECT_EQ(a.stretches, 1u);
  EXPECT_NEAR(static_cast<double>(a.trace.time_ns(100)), static_cast<double>(produced_ns(s, 150)), 2.0 * kMs);
  // The reader's own count cannot know how many reports the gap lost: after it, the sequence goes
  // on from 100 as if nothing was lost. Two stretches, each fitted on its own, keep the times true.
  for (std::size_t i = 0; i < readings.size(); ++i) {
    readings[i].sequence = i;
    readings[i].device_time_us.reset();
  }
  a = align_meter(readings, in);
  EXPECT_EQ(a.stretches, 2u);
  EXPECT_NEAR(static_cast<double>(a.trace.time_ns(100)), static_cast<double>(produced_ns(s, 150)), 2.0 * kMs);
}

TEST(MeterAlignment, BurstyArrivalKeepsTheNominalInterval) {
  Stream s;
  s.drift = 0;
  auto readings = simulate(s);
  // USB batching: reports arrive in bursts of 20, all at the time the last of each was produced,
  // and the batches come later and later (a slope 3 % off).
  for (std::size_t i = 0; i < readings.size(); ++i) {
    const std::size_t last = std::min(readings.size() - 1, (i / 20) * 20 + 19);
    readings[i].host_time_ns =
        produced_ns(s, last) +
        static_cast<std::int64_t>(0.03 * static_cast<double>(produced_ns(s, last) - s.start_ns)) +
        static_cast<std::int64_t>(i % 20);
  }
  const auto a = align_meter(readings, input_for(s));
  ASSERT_TRUE(a.fit);
  EXPECT_EQ(a.clock, "clock fit (nominal interval)");
  EXPECT_DOUBLE_EQ(a.fit->interval_ns, static_cast<double>(s.interval_ns));
}

TEST(MeterAlignment, ANonPositiveIntervalIsAnErrorNamingTheMeter) {
  MeterAlignmentInput in;
  in.name = "wattsup:/dev/ttyUSB0";
  in.nominal_interval_ns = 0;
  try {
    (void)align_meter({}, in);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("wattsup:/dev/ttyUSB0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace jetchar::jetson::measurement
