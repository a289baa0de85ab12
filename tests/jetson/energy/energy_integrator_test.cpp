#include "jetson/energy/energy_integrator.h"
#include "tests/jetson/energy/nanoseconds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace jetchar::jetson::energy {
namespace {

PowerTrace hand_trace() {
  PowerTrace trace({{"VDD_IN", RailRole::kBoardInput}, {"VDD_CPU", RailRole::kModule}});
  trace.append(0 * kS, {1000.0, 500.0});
  trace.append(1 * kS, {2000.0, std::nullopt});
  trace.append(2 * kS, {2000.0, 700.0});
  trace.append(3 * kS, {4000.0, 700.0});
  return trace;
}

TEST(EnergyIntegrator, TrapezoidOverWholeTraceMatchesHandValue) {
  const auto e = integrate(hand_trace(), 0, 0, 3 * kS);
  ASSERT_TRUE(e.energy_mj);
  // 1500 + 2000 + 3000 mJ
  EXPECT_DOUBLE_EQ(*e.energy_mj, 6500.0);
  EXPECT_TRUE(e.complete);
  EXPECT_EQ(e.covered_ns, 3 * kS);
  EXPECT_EQ(e.gap_ns, 0);
  EXPECT_EQ(e.samples_inside, 2u);
}

TEST(EnergyIntegrator, TrapezoidInterpolatesAtWindowEdges) {
  const auto e = integrate(hand_trace(), 0, kS / 2, 5 * kS / 2);
  ASSERT_TRUE(e.energy_mj);
  // 0.5..1: (1500+2000)/2*0.5 = 875; 1..2: 2000; 2..2.5: (2000+3000)/2*0.5 = 1250
  EXPECT_DOUBLE_EQ(*e.energy_mj, 4125.0);
  EXPECT_TRUE(e.complete);
}

TEST(EnergyIntegrator, WindowInsideOneIntervalUsesTheInterpolatedLine) {
  const auto e = integrate(hand_trace(), 0, 2 * kS + kS / 4, 2 * kS + 3 * kS / 4);
  ASSERT_TRUE(e.energy_mj);
  // p(2.25) = 2500, p(2.75) = 3500 → 3000 mW × 0.5 s
  EXPECT_DOUBLE_EQ(*e.energy_mj, 1500.0);
  EXPECT_EQ(e.samples_inside, 0u);
}

TEST(EnergyIntegrator, BackwardRectangleHoldsEachSampleOverItsInterval) {
  const auto all = integrate(hand_trace(), 0, 0, 3 * kS, Integration::kBackwardRectangle);
  ASSERT_TRUE(all.energy_mj);
  EXPECT_DOUBLE_EQ(*all.energy_mj, 8000.0);
  const auto part = integrate(hand_trace(), 0, kS / 2, 5 * kS / 2, Integration::kBackwardRectangle);
  ASSERT_TRUE(part.energy_mj);
  EXPECT_DOUBLE_EQ(*part.energy_mj, 2000.0 * 0.5 + 2000.0 + 4000.0 * 0.5);
  EXPECT_TRUE(part.complete);
}

TEST(EnergyIntegrator, InvalidSamplesAreBridgedAndReportedAsGap) {
  const auto e = integrate(hand_trace(), 1, 0, 3 * kS);
  ASSERT_TRUE(e.energy_mj);
  // 500 → 700 linearly over 2 s = 1200, then 700 for 1 s
  EXPECT_DOUBLE_EQ(*e.energy_mj, 1900.0);
  EXPECT_EQ(e.gap_ns, 2 * kS);
  EXPECT_TRUE(e.complete);

  const auto r = integrate(hand_trace(), 1, 0, 3 * kS, Integration::kBackwardRectangle);
  ASSERT_TRUE(r.energy_mj);
  // the invalid interval (0,1] is held at the next valid average (700)
  EXPECT_DOUBLE_EQ(*r.energy_mj, 2100.0);
  EXPECT_EQ(r.gap_ns, kS);
}

TEST(EnergyIntegrator, WindowBeyondTheTraceIsIncomplete) {
  const auto e = integrate(hand_trace(), 0, 2 * kS, 5 * kS);
  ASSERT_TRUE(e.energy_mj);
  EXPECT_DOUBLE_EQ(*e.energy_mj, 3000.0);
  EXPECT_EQ(e.covered_ns, kS);
  EXPECT_FALSE(e.complete);
  const auto outside = integrate(hand_trace(), 0, 10 * kS, 11 * kS);
  EXPECT_FALSE(outside.energy_mj);
  EXPECT_FALSE(outside.complete);
}

TEST(EnergyIntegrator, RejectsBadArguments) {
  EXPECT_THROW(integrate(hand_trace(), 5, 0, kS), std::invalid_argument);
  EXPECT_THROW(integrate(hand_trace(), 0, kS, 0), std::invalid_argument);
  PowerTrace trace({{"A", RailRole::kModule}});
  trace.append(kS, {1.0});
  EXPECT_THROW(trace.append(0, {1.0}), std::invalid_argument);
  EXPECT_THROW(trace.append(2 * kS, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(PowerTrace({{"A", RailRole::kModule}, {"A", RailRole::kModule}}), std::invalid_argument);
}

// A piecewise-linear signal sampled at (among others) all its breakpoints: the trapezoid rule is
// exact for any window, however irregular the sampling.
TEST(EnergyIntegrator, ExactOnPiecewiseLinearTraceWithIrregularSampling) {
  const std::vector<std::pair<double, double>> breakpoints = {{0.0, 3000.0}, {2.0, 3000.0}, {2.5, 9000.0},
                                                              {6.0, 9000.0}, {6.2, 4000.0}, {10.0, 5000.0}};
  const auto power = [&](double t) {
    for (std::size_t i = 1; i < breakpoints.size(); ++i) {
      const auto [t0, p0] = breakpoints[i - 1];
      const auto [t1, p1] = breakpoints[i];
      if (t <= t1) return p0 + (p1 - p0) * (t - t0) / (t1 - t0);
    }
    return breakpoints.back().second;
  };
  const auto exact_mj = [&](double a, double b) {  // analytic integral by fine pieces
    double sum = 0;
    std::vector<double> cuts{a, b};
    for (auto [t, p] : breakpoints) {
      if (t > a && t < b) cuts.push_back(t);
    }
    std::sort(cuts.begin(), cuts.end());
    for (std::size_t i = 1; i < cuts.size(); ++i)
      sum += 0.5 * (power(cuts[i - 1]) + power(cuts[i])) * (cuts[i] - cuts[i - 1]);
    return sum;
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> gap(0.001, 0.05);
  std::vector<double> times;
  for (auto [t, p] : breakpoints) times.push_back(t);
  for (double t = 0; t < 10.0; t += gap(rng)) times.push_back(t);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  PowerTrace trace({{"VDD_IN", RailRole::kBoardInput}});
  for (double t : times)
    trace.append(static_cast<std::int64_t>(std::llround(t * 1e9)),
                 {power(static_cast<double>(std::llround(t * 1e9)) / 1e9)});

  for (auto [a, b] : std::vector<std::pair<double, double>>{{0, 10}, {1.234567, 2.3456789}, {2.1, 6.1}, {6.15, 9.99}}) {
    const auto e = integrate(trace, 0, static_cast<std::int64_t>(a * 1e9), static_cast<std::int64_t>(b * 1e9));
    ASSERT_TRUE(e.energy_mj);
    EXPECT_NEAR(*e.energy_mj, exact_mj(a, b), 1e-6) << a << ".." << b;
  }
}

}  // namespace
}  // namespace jetchar::jetson::energy
