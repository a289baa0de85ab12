#include "analysis/mode_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace jetchar::analysis {
namespace {

ConfigPoint point(double time_s, std::optional<double> energy_j, std::optional<double> power_w) {
  ConfigPoint p;
  p.time_s = time_s;
  p.energy_j = energy_j;
  p.power_w = power_w;
  return p;
}

// An inference point's latency bound is on its latency, which is its time only when its speed is
// latency (p99 here).
double latency_of(const ConfigPoint& p) {
  return p.query_speed == QuerySpeed::kLatency ? p.time_s : *p.latency.p99 / 1000;
}

// Brute force: evaluate every point, keep the smallest objective.
std::optional<double> brute_force(const std::vector<ConfigPoint>& pts, const Budget& b) {
  double pmax = b.max_power_w.value_or(0);
  if (!b.max_power_w) {
    for (const auto& p : pts) pmax = std::max(pmax, p.power_w.value_or(0));
  }
  std::optional<double> best;
  for (const auto& p : pts) {
    std::optional<double> obj;
    if (b.min_throughput && !(p.throughput_samples_per_s && *p.throughput_samples_per_s >= *b.min_throughput)) continue;
    switch (b.kind) {
      case Budget::Kind::kMaxTime:
        if (p.energy_j && p.time_s <= b.value && !p.query_latency) obj = *p.energy_j;
        break;
      case Budget::Kind::kMaxLatency:
        if (p.energy_j && p.query_latency && latency_of(p) <= b.value) obj = *p.energy_j;
        break;
      case Budget::Kind::kMinThroughput:
        if (p.energy_j && p.query_latency && p.throughput_samples_per_s >= b.value) obj = *p.energy_j;
        break;
      case Budget::Kind::kMaxEnergy:
        if (p.energy_j && *p.energy_j <= b.value) obj = p.time_s;
        break;
      case Budget::Kind::kMaxPower:
        if (p.power_w && *p.power_w <= b.value) obj = p.time_s;
        break;
      case Budget::Kind::kZeusCost:
        if (p.energy_j) obj = b.value * *p.energy_j + (1 - b.value) * pmax * p.time_s;
        break;
    }
    if (obj && (!best || *obj < *best)) best = obj;
  }
  return best;
}

TEST(ModeChoice, ZeusCostFormula) {
  EXPECT_DOUBLE_EQ(zeus_cost(100, 10, 0.5, 30), 0.5 * 100 + 0.5 * 30 * 10);
  EXPECT_DOUBLE_EQ(zeus_cost(100, 10, 1.0, 30), 100);
  EXPECT_DOUBLE_EQ(zeus_cost(100, 10, 0.0, 30), 300);
}

TEST(ModeChoice, HandMadeChoices) {
  // time, energy, power: a fast hungry mode, a balanced one, a slow frugal one, a dominated one.
  std::vector<ConfigPoint> pts = {point(10, 300, 30), point(20, 200, 10), point(40, 160, 4), point(45, 200, 4.4)};
  EXPECT_EQ(choose(pts, {Budget::Kind::kMaxTime, 25})->index, 1u);
  EXPECT_EQ(choose(pts, {Budget::Kind::kMaxTime, 100})->index, 2u);
  EXPECT_FALSE(choose(pts, {Budget::Kind::kMaxTime, 5}));
  EXPECT_EQ(choose(pts, {Budget::Kind::kMaxPower, 12})->index, 1u);
  EXPECT_EQ(choose(pts, {Budget::Kind::kMaxEnergy, 250})->index, 1u);
  EXPECT_EQ(choose(pts, {Budget::Kind::kZeusCost, 1.0})->index, 2u);
  EXPECT_EQ(choose(pts, {Budget::Kind::kZeusCost, 0.0})->index, 0u);
  // eta 0.5, P_max 30: costs 300, 400, 680, 775.
  auto zeus = choose(pts, {Budget::Kind::kZeusCost, 0.5});
  EXPECT_EQ(zeus->index, 0u);
  EXPECT_DOUBLE_EQ(zeus->objective, 300);
}

TEST(ModeChoice, PowerBudgetCanPickADominatedPoint) {
  // (20, 100) at 5 W is dominated by (10, 100) at 10 W, but only it meets a 6 W budget.
  std::vector<ConfigPoint> pts = {point(10, 100, 10), point(20, 100, 5)};
  EXPECT_EQ(choose(pts, {Budget::Kind::kMaxPower, 6})->index, 1u);
}

TEST(ModeChoice, RejectsBadBudgets) {
  std::vector<ConfigPoint> pts = {point(1, 1, 1)};
  EXPECT_THROW(choose(pts, {Budget::Kind::kZeusCost, 1.5}), std::invalid_argument);
  EXPECT_THROW(choose(pts, {Budget::Kind::kMaxTime, -1}), std::invalid_argument);
  EXPECT_THROW(choose(pts, {Budget::Kind::kZeusCost, 0.5, 0.0}), std::invalid_argument);
}

TEST(ModeChoice, MatchesBruteForceOnRandomSets) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> time(1, 100), power(2, 40), unit(0, 1);
  std::uniform_int_distribution<int> size(0, 40);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<ConfigPoint> pts;
    int n = size(rng);
    // Every fourth set is of inference points (latency as the time, a throughput each); every
    // eighth has the time per sample as its time and a p99 latency apart from it.
    const bool queries = trial % 4 == 0;
    const bool per_sample = trial % 8 == 0;
    for (int i = 0; i < n; ++i) {
      double t = trial % 3 ? time(rng) : std::round(time(rng) / 20);  // coarse values force ties
      double w = trial % 3 ? power(rng) : std::round(power(rng) / 10);
      std::optional<double> e = unit(rng) < 0.1 ? std::nullopt : std::optional<double>(t * w);
      std::optional<double> p = unit(rng) < 0.1 ? std::nullopt : std::optional<double>(w);
      pts.push_back(point(t, e, p));
      if (queries) {
        pts.back().query_latency = LatencyPercentile::kP99;
        pts.back().throughput_samples_per_s = 1000 * unit(rng);
        if (per_sample) {
          pts.back().query_speed = QuerySpeed::kThroughput;
          pts.back().latency.p99 = 1000 * time(rng);
        }
      }
    }
    Budget latency_floor(Budget::Kind::kMaxLatency, time(rng));
    latency_floor.min_throughput = 500;
    std::vector<Budget> budgets = {{Budget::Kind::kMaxTime, time(rng)},
                                   {Budget::Kind::kMaxLatency, time(rng)},
                                   latency_floor,
                                   {Budget::Kind::kMinThroughput, 1000 * unit(rng)},
                                   {Budget::Kind::kMaxPower, power(rng)},
                                   {Budget::Kind::kMaxEnergy, time(rng) * power(rng)},
                                   {Budget::Kind::kZeusCost, unit(rng)},
                                   {Budget::Kind::kZeusCost, unit(rng), 50.0}};
    for (const Budget& b : budgets) {
      auto got = choose(pts, b);
      auto expected = brute_force(pts, b);
      ASSERT_EQ(got.has_value(), expected.has_value()) << "trial " << trial << " " << b.describe();
      if (got) {
        EXPECT_DOUBLE_EQ(got->objective, *expected) << "trial " << trial << " " << b.describe();
        // The chosen point itself meets the budget.
        const ConfigPoint& c = pts[got->index];
        if (b.kind == Budget::Kind::kMaxTime || b.kind == Budget::Kind::kMaxLatency) {
          EXPECT_LE(b.kind == Budget::Kind::kMaxTime ? c.time_s : latency_of(c), b.value);
          EXPECT_EQ(c.query_latency.has_value(), b.kind == Budget::Kind::kMaxLatency);
          if (b.min_throughput) {
            EXPECT_GE(*c.throughput_samples_per_s, *b.min_throughput);
          }
        } else if (b.kind == Budget::Kind::kMinThroughput) {
          EXPECT_GE(*c.throughput_samples_per_s, b.value);
        } else if (b.kind == Budget::Kind::kMaxPower) {
          EXPECT_LE(*c.power_w, b.value);
        } else if (b.kind == Budget::Kind::kMaxEnergy) {
          EXPECT_LE(*c.energy_j, b.value);
        }
      }
    }
  }
}

// analyze choose: one answer per group, a group without a mode in the budget answers nullopt, and
// a point without energy stays in its group for a power budget.
TEST(ModeChoice, ChoosesWithinEachGroup) {
  auto at = [](std::string batch, double time_s, std::optional<double> energy_j, double power_w) {
    ConfigPoint p = point(time_s, energy_j, power_w);
    p.key.workload = "lenet5";
    p.key.axes["batch"] = std::move(batch);
    return p;
  };
  const std::vector<ConfigPoint> points = {at("16", 2.0, 10.0, 5.0), at("32", 1.0, std::nullopt, 4.0),
                                           at("16", 1.0, 12.0, 12.0), at("32", 3.0, 9.0, 3.0)};
  const auto by_time = choose_per_group(points, {"batch"}, Budget(Budget::Kind::kMaxTime, 1.5));
  ASSERT_EQ(by_time.size(), 2u);
  EXPECT_EQ(by_time[0].group.label(), "lenet5 batch=16");
  ASSERT_TRUE(by_time[0].choice);
  EXPECT_EQ(by_time[0].group.points[by_time[0].choice->index].time_s, 1.0);
  EXPECT_FALSE(by_time[1].choice);  // batch 32's fast point has no energy, its other one is too slow
  const auto by_power = choose_per_group(points, {"batch"}, Budget(Budget::Kind::kMaxPower, 4.5));
  ASSERT_TRUE(by_power[1].choice);
  EXPECT_EQ(by_power[1].group.points[by_power[1].choice->index].time_s, 1.0);
  EXPECT_FALSE(by_power[0].choice);
}

// A latency budget judges inference groups, a time budget training ones: an epoch time is never
// held against a latency bound, nor the other way round.
TEST(ModeChoice, ALatencyBudgetJudgesInferenceAndATimeBudgetTraining) {
  ConfigPoint train = point(0.02, 10.0, 5.0), infer = point(0.02, 0.1, 5.0);
  train.key.workload = infer.key.workload = "bert-tiny-qa/squad";
  infer.query_latency = LatencyPercentile::kP99;
  infer.throughput_samples_per_s = 400;
  const std::vector<ConfigPoint> points = {train, infer};
  const auto by_latency = choose_per_group(points, {}, Budget(Budget::Kind::kMaxLatency, 0.05));
  ASSERT_EQ(by_latency.size(), 1u);
  EXPECT_EQ(by_latency[0].group.label(), "bert-tiny-qa/squad inference");
  ASSERT_TRUE(by_latency[0].choice);
  const auto by_time = choose_per_group(points, {}, Budget(Budget::Kind::kMaxTime, 0.05));
  ASSERT_EQ(by_time.size(), 1u);
  EXPECT_EQ(by_time[0].group.label(), "bert-tiny-qa/squad");
  Budget floor(Budget::Kind::kMaxLatency, 0.05);
  floor.min_throughput = 500;
  EXPECT_FALSE(choose_per_group(points, {}, floor)[0].choice);  // 400 samples/s is below the floor
  EXPECT_EQ(floor.describe(), "least energy per query with query latency <= 50 ms and >= 500 samples/s");
}

// A throughput floor on its own judges inference points: the least energy (here per sample) among
// those that serve enough samples/s.
TEST(ModeChoice, AThroughputFloorTakesTheLeastEnergyOfThePointsThatServeEnough) {
  auto query = [](double latency_s, double samples_per_s, double j_per_sample) {
    ConfigPoint p = point(1 / samples_per_s, j_per_sample, 10);
    p.key.workload = "bert-tiny-qa/squad";
    p.query_latency = LatencyPercentile::kP99;
    p.query_speed = QuerySpeed::kThroughput;
    p.query_energy = QueryEnergy::kPerSample;
    p.latency.p99 = 1000 * latency_s;
    p.throughput_samples_per_s = samples_per_s;
    return p;
  };
  // batch 1, 4, 8: more samples/s and less per sample as the batch grows, the largest the slowest query
  const std::vector<ConfigPoint> points = {query(0.003, 300, 0.04), query(0.004, 1200, 0.011),
                                           query(0.008, 2000, 0.0064)};
  Budget floor(Budget::Kind::kMinThroughput, 1000);
  floor.query_energy = QueryEnergy::kPerSample;
  EXPECT_EQ(floor.describe(), "least energy per sample with >= 1000 samples/s");
  ASSERT_TRUE(choose(points, floor));
  EXPECT_EQ(choose(points, floor)->index, 2u);
  EXPECT_FALSE(choose(points, Budget(Budget::Kind::kMinThroughput, 2500)));
  ConfigPoint train = point(0.001, 1, 1);  // a training point is never judged by a throughput floor
  train.throughput_samples_per_s = 5000;
  EXPECT_FALSE(floor.judges(train));
  EXPECT_FALSE(choose(std::vector<ConfigPoint>{train}, floor));

  // A latency bound on points whose time is the time per sample: batch 8 dominates batch 4 on
  // (time per sample, J/sample) but misses 5 ms, so the dominated batch 4 is the answer.
  Budget slo(Budget::Kind::kMaxLatency, 0.005);
  slo.query_energy = QueryEnergy::kPerSample;
  EXPECT_EQ(slo.describe(), "least energy per sample with query latency <= 5 ms");
  ASSERT_TRUE(choose(points, slo));
  EXPECT_EQ(choose(points, slo)->index, 1u);
}

}  // namespace
}  // namespace jetchar::analysis
