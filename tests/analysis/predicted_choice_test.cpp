#include "analysis/predicted_choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/adaptive_profile.h"
#include "tests/analysis/ground_truths.h"

namespace jetchar::analysis {
namespace {

// 15 profiled modes of the 1,440-mode grid (the space-filling design, 2 % noise) and the other
// modes unmeasured.
struct Profiled {
  std::vector<PowerMode> modes = testing::orin_grid_1440();
  std::vector<ConfigPoint> points;
  std::vector<const ConfigPoint*> measured;
  std::vector<ConfigPoint> train;
  ModePredictor predictor;

  explicit Profiled(const testing::Truth& truth) {
    points = testing::measure(modes, truth, 11);
    measured.assign(modes.size(), nullptr);
    for (std::size_t i : space_filling_design(modes, 15)) measured[i] = &points[i], train.push_back(points[i]);
    predictor = ModePredictor::fit(train);
  }
  double true_time_quantile(const testing::Truth& truth, double q) const {
    std::vector<double> t;
    for (const PowerMode& m : modes) t.push_back(testing::truth_time_s(m, truth));
    std::sort(t.begin(), t.end());
    return t[static_cast<std::size_t>(q * static_cast<double>(t.size() - 1))];
  }
};

TEST(PredictedChoice, TakesTheLeastEnergyOfTheModesWhoseBoundMeetsTheBudget) {
  const Profiled p(testing::balanced());
  const Budget budget(Budget::Kind::kMaxTime, p.true_time_quantile(testing::balanced(), 0.25));
  const auto choice = choose_from_predictions(p.predictor, p.modes, p.measured, budget, 0.9);
  ASSERT_TRUE(choice);
  std::size_t eligible = 0;
  for (std::size_t i = 0; i < p.modes.size(); ++i) {
    double bound = 0, energy = 0;
    if (p.measured[i]) {
      bound = p.measured[i]->time_s, energy = *p.measured[i]->energy_j;
    } else {
      const ModePrediction at = p.predictor.predict(p.modes[i], 0.8);  // one-sided 90 %
      bound = at.time_s.high, energy = at.energy_j->value;
    }
    if (bound > budget.value) continue;
    ++eligible;
    EXPECT_GE(energy, choice->objective) << p.modes[i].label();
  }
  EXPECT_EQ(choice->eligible, eligible);
  const ModePrediction chosen = p.predictor.predict(p.modes[choice->index], 0.8);
  EXPECT_LE(choice->measured ? p.measured[choice->index]->time_s : chosen.time_s.high, budget.value);
  EXPECT_GE(choice->expected_regret_pct, 0);
  EXPECT_GE(choice->within_one_pct_probability, 0);
  EXPECT_LE(choice->within_one_pct_probability, 1);
}

TEST(PredictedChoice, MoreConfidenceLeavesFewerModesEligible) {
  const Profiled p(testing::gpu_bound());
  const Budget budget(Budget::Kind::kMaxTime, p.true_time_quantile(testing::gpu_bound(), 0.5));
  // Jackknife+'s bounds are order statistics of 15 left-out fits, so nearby levels may share one.
  std::vector<std::size_t> eligible;
  for (double confidence : {0.6, 0.75, 0.9, 0.97}) {
    const auto choice = choose_from_predictions(p.predictor, p.modes, p.measured, budget, confidence);
    ASSERT_TRUE(choice) << confidence;
    if (!eligible.empty()) {
      EXPECT_LE(choice->eligible, eligible.back()) << confidence;
    }
    eligible.push_back(choice->eligible);
  }
  EXPECT_LT(eligible.back(), eligible.front());
}

// Every mode measured: the choice is the measured one under the budget less the noise margin
// (z(0.9) = 1.2816 root-mean-square left-out residuals), with nothing uncertain.
TEST(PredictedChoice, EveryModeMeasuredIsTheMeasuredChoiceWithinTheNoiseMarginAndNothingUncertain) {
  const Profiled p(testing::memory_bound());
  std::vector<const ConfigPoint*> all;
  for (const ConfigPoint& c : p.points) all.push_back(&c);
  const double z = 1.2815515655446004;
  for (const Budget& budget : {Budget(Budget::Kind::kMaxTime, p.true_time_quantile(testing::memory_bound(), 0.3)),
                               Budget(Budget::Kind::kMaxPower, 30.0), Budget(Budget::Kind::kMaxEnergy, 400.0)}) {
    const double variance = budget.kind == Budget::Kind::kMaxTime    ? p.predictor.time_residual_variance()
                            : budget.kind == Budget::Kind::kMaxPower ? *p.predictor.power_residual_variance()
                                                                     : *p.predictor.energy_residual_variance();
    const Budget within_margin(budget.kind, budget.value / std::exp(z * std::sqrt(variance)));
    const auto predicted = choose_from_predictions(p.predictor, p.modes, all, budget);
    const auto measured = choose(p.points, within_margin);
    ASSERT_EQ(predicted.has_value(), measured.has_value()) << budget.describe();
    if (!measured) continue;
    EXPECT_EQ(predicted->index, measured->index) << budget.describe();
    EXPECT_TRUE(predicted->measured);
    EXPECT_EQ(predicted->time_s.low, predicted->time_s.high);
    EXPECT_EQ(predicted->expected_regret_pct, 0);
    EXPECT_EQ(predicted->within_one_pct_probability, 1);
  }
}

TEST(PredictedChoice, ABudgetNoModeCanMeetIsNoChoice) {
  const Profiled p(testing::launch_bound());
  EXPECT_FALSE(choose_from_predictions(p.predictor, p.modes, p.measured, Budget(Budget::Kind::kMaxTime, 1e-6)));
  EXPECT_FALSE(choose_from_predictions(p.predictor, p.modes, p.measured, Budget(Budget::Kind::kMaxPower, 0.1)));
}

TEST(PredictedChoice, TheDecisivePickIsAnUntriedPredictedModeThatCouldBeatTheChoice) {
  const Profiled p(testing::balanced());
  const Budget budget(Budget::Kind::kMaxTime, p.true_time_quantile(testing::balanced(), 0.25));
  std::vector<bool> tried(p.modes.size(), false);
  for (std::size_t i = 0; i < p.modes.size(); ++i) tried[i] = p.measured[i] != nullptr;
  const auto choice = choose_from_predictions(p.predictor, p.modes, p.measured, budget);
  ASSERT_TRUE(choice);
  const auto next = most_decisive(p.predictor, p.modes, p.measured, tried, budget);
  ASSERT_TRUE(next);
  EXPECT_FALSE(tried[*next]);
  EXPECT_NE(*next, choice->index);
  // It may beat the choice: its energy interval reaches below the choice's objective.
  EXPECT_LT(p.predictor.predict(p.modes[*next]).energy_j->low, choice->objective);
  // With every mode tried, nothing is left; a budget no sample meets leaves nothing to aim at.
  EXPECT_FALSE(most_decisive(p.predictor, p.modes, p.measured, std::vector<bool>(p.modes.size(), true), budget));
  EXPECT_FALSE(most_decisive(p.predictor, p.modes, p.measured, tried, Budget(Budget::Kind::kMaxTime, 1e-6)));
  EXPECT_THROW(most_decisive(p.predictor, p.modes, p.measured, std::vector<bool>(3), budget), std::invalid_argument);
}

TEST(PredictedChoice, BadRequestsAreNamed) {
  const Profiled p(testing::gpu_bound());
  const Budget time(Budget::Kind::kMaxTime, 1.0);
  auto message = [&](const Budget& b, double confidence, std::size_t measured) {
    std::vector<const ConfigPoint*> m(measured, nullptr);
    try {
      choose_from_predictions(p.predictor, p.modes, m, b, confidence);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(Budget(Budget::Kind::kZeusCost, 0.5), 0.9, p.modes.size()),
            "a Zeus cost has no budget to meet; it chooses among measured modes only");
  EXPECT_EQ(message(time, 0.5, p.modes.size()), "confidence 0.5 is outside (0.5, 1)");
  EXPECT_EQ(message(time, 1.0, p.modes.size()), "confidence 1 is outside (0.5, 1)");
  EXPECT_EQ(message(Budget(Budget::Kind::kMaxTime, -1), 0.9, p.modes.size()), "budget -1 must be >= 0");
  EXPECT_EQ(message(time, 0.9, 3), "1440 modes but 3 entries saying which are measured");
}

}  // namespace
}  // namespace jetchar::analysis
