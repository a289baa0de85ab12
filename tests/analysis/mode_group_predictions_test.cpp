// What `analyze predict` computes per group, without the CLI: every mode asked for predicted, the
// modes the fit was made on flagged, the held-out MAPE over the measured modes it left out, and the
// modes beyond the profiled range.
#include "analysis/mode_group_predictions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

using testing::make_mode;

std::vector<PowerMode> group_test_grid() {
  std::vector<PowerMode> modes;
  for (int cores : {4, 8})
    for (double cpu : {1.2, 2.2})
      for (double gpu : {0.6, 1.3})
        for (double emc : {2.133, 3.199}) modes.push_back(make_mode(cores, cpu, gpu, emc));
  return modes;
}

TEST(ModeGroupPredictions, AFixedModelOnSomeModesScoresTheMeasuredModesItLeftOut) {
  const auto measured = group_test_grid();
  const auto groups = mode_groups(testing::synthetic_points(measured, testing::GroundTruth{}, 7));
  ASSERT_EQ(groups.size(), 1u);
  std::vector<PowerMode> asked = measured;
  asked.push_back(make_mode(12, 2.2, 1.3, 3.199));  // never measured, beyond the profiled cores
  GroupPredictionRequest request;
  request.automatic = false;
  request.kind = ModelKind::kNnls;
  request.profile = 8;
  const auto predicted = predict_groups(groups, asked, request);
  ASSERT_EQ(predicted.size(), 1u);
  const GroupPredictions& g = predicted[0];
  EXPECT_EQ(g.profiled, 8u);
  EXPECT_EQ(g.model, "nnls");
  ASSERT_EQ(g.modes.size(), asked.size());
  std::size_t fitted = 0;
  double sum = 0;
  for (const PredictedMode& p : g.modes) {
    EXPECT_TRUE(p.time_s.value.has_value());
    EXPECT_FALSE(p.time_s.low.has_value());  // a fixed model gives no interval
    fitted += p.fitted_on ? 1 : 0;
    if (p.measured != nullptr && !p.fitted_on) sum += std::abs(*p.time_s.value / p.measured->time_s - 1);
  }
  EXPECT_EQ(fitted, 8u);
  EXPECT_EQ(g.modes.back().measured, nullptr);
  EXPECT_EQ(g.held_out_time.modes, measured.size() - 8);
  ASSERT_TRUE(g.held_out_time.pct());
  EXPECT_NEAR(*g.held_out_time.pct(), 100 * sum / static_cast<double>(measured.size() - 8), 1e-9);
  ASSERT_EQ(g.extrapolated.size(), 1u);
  EXPECT_EQ(g.extrapolated[0].range.knob, "cpu_cores");
  EXPECT_EQ(g.extrapolated[0].modes, 1u);
  EXPECT_EQ(g.modes.back().extrapolates, (std::vector<std::string_view>{"cpu_cores"}));
}

TEST(ModeGroupPredictions, TheAutoModelGivesIntervalsAndSuggestsModesItWasNotFittedOn) {
  const auto measured = group_test_grid();
  const auto groups = mode_groups(testing::synthetic_points(measured, testing::GroundTruth{}, 3));
  GroupPredictionRequest request;
  request.profile = 10;
  request.suggest = 2;
  const auto predicted = predict_groups(groups, measured, request);
  ASSERT_EQ(predicted.size(), 1u);
  const GroupPredictions& g = predicted[0];
  EXPECT_EQ(g.profiled, 10u);
  EXPECT_EQ(g.model.rfind("auto:", 0), 0u) << g.model;
  EXPECT_EQ(g.held_out_time.modes, 6u);
  std::vector<const PowerMode*> fitted;
  for (const PredictedMode& p : g.modes) {
    ASSERT_TRUE(p.time_s.low && p.time_s.high);
    EXPECT_LE(*p.time_s.low, *p.time_s.value);
    EXPECT_GE(*p.time_s.high, *p.time_s.value);
    if (p.fitted_on) fitted.push_back(&p.mode);
  }
  ASSERT_EQ(g.profile_next.size(), 2u);
  for (const PowerMode* next : g.profile_next) {
    for (const PowerMode* f : fitted) EXPECT_NE(next->label(), f->label());
  }
}

// An inference group judged by its p99 latency, whose tail runs 40 % (and noisily) above the mean
// latency its energy per query is spent over: the p99 is predicted as the time, while power and
// J/query come from the fit on the mean latency. Power x the p99 would overstate J/query by about
// 40 %.
TEST(ModeGroupPredictions, AnInferenceGroupsEnergyPerQueryComesFromItsMeanLatency) {
  const auto measured = group_test_grid();
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(1.0, 0.01), tail(1.4, 0.05);
  std::vector<ConfigPoint> points;
  for (const PowerMode& m : measured) {
    ConfigPoint p;
    p.key.workload = "bert-tiny-qa/squad";
    p.key.mode = m;
    p.query_latency = LatencyPercentile::kP99;
    const double mean_s = testing::true_time_s(m, testing::GroundTruth{}) / 1000 * noise(rng);
    p.time_s = mean_s * tail(rng);
    p.latency.avg = 1000 * mean_s;
    p.latency.p99 = 1000 * p.time_s;
    p.power_w = testing::true_power_w(m) * noise(rng);
    p.energy_j = *p.power_w * mean_s;
    p.samples = 1;
    points.push_back(p);
  }
  const auto groups = mode_groups(points);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_TRUE(groups[0].query_latency);
  for (const bool automatic : {true, false}) {
    SCOPED_TRACE(automatic ? "auto" : "nnls");
    GroupPredictionRequest request;
    request.automatic = automatic;
    request.profile = 8;
    const auto predicted = predict_groups(groups, measured, request);
    ASSERT_EQ(predicted.size(), 1u);
    const GroupPredictions& g = predicted[0];
    EXPECT_NE(g.model.find("; energy "), std::string::npos) << g.model;
    ASSERT_EQ(g.held_out_energy.modes, 8u);
    EXPECT_LT(*g.held_out_energy.pct(), 5) << "J/query from the mean latency";
    EXPECT_LT(*g.held_out_power.pct(), 5);
    ASSERT_EQ(g.held_out_time.modes, 8u);
    EXPECT_LT(*g.held_out_time.pct(), 12) << "the p99 itself, with its tail's noise";
    for (const PredictedMode& p : g.modes) {
      // The p99 predicted is the tail's, well above the mean latency the energy is spent over.
      EXPECT_GT(*p.time_s.value * *p.power_w.value, 1.2 * *p.energy_j.value) << p.mode.label();
    }
  }
}

}  // namespace
}  // namespace jetchar::analysis
