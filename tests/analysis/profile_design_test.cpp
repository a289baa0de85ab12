#include "analysis/profile_design.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

TEST(ProfileDesign, StartsAtTheTopModeAndSpreadsToCorners) {
  auto modes = testing::orin_like_grid();
  auto chosen = spread_design(modes, 6);
  ASSERT_EQ(chosen.size(), 6u);
  EXPECT_EQ(std::set<std::size_t>(chosen.begin(), chosen.end()).size(), 6u);
  const PowerMode& first = modes[chosen[0]];
  EXPECT_EQ(first.cpu_cores, 12);
  EXPECT_EQ(first.gpu_freq_khz, 1300000);
  // The second is the opposite corner: every knob lowest.
  const PowerMode& second = modes[chosen[1]];
  EXPECT_EQ(second.cpu_cores, 2);
  EXPECT_EQ(second.cpu_freq_khz, 730000);
  EXPECT_EQ(second.gpu_freq_khz, 300000);
  EXPECT_EQ(second.emc_freq_khz, 665000);
  EXPECT_EQ(spread_design(modes, 1000).size(), modes.size());
  EXPECT_TRUE(spread_design(modes, 0).empty());
}

TEST(ProfileDesign, DuplicateModesStillGiveDistinctIndices) {
  std::vector<PowerMode> modes(4, testing::make_mode(4, 1.0, 1.0, 1.0));
  auto chosen = spread_design(modes, 4);
  EXPECT_EQ(std::set<std::size_t>(chosen.begin(), chosen.end()).size(), 4u);
}

TEST(ProfileDesign, SpreadProfilesPredictBetterThanRandomOnes) {
  auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 5);
  for (std::size_t count : {5u, 6u, 8u}) {
    auto eval = evaluate_profile_choice(ModelKind::kNnls, pts, count, 20, 9);
    ASSERT_TRUE(eval.design_time_mape && eval.random_time_mape);
    EXPECT_EQ(eval.evaluated, pts.size() - count);
    EXPECT_LT(*eval.design_time_mape, *eval.random_time_mape) << count << " profiled";
    EXPECT_LT(*eval.design_time_mape, 5.0) << count << " profiled";
  }
  EXPECT_THROW(evaluate_profile_choice(ModelKind::kNnls, pts, pts.size()), std::invalid_argument);
}

// The auto predictor's comparison scores power too, and refuses budgets it cannot fit on or that
// leave nothing to score.
TEST(ProfileDesign, AutoComparisonScoresPowerAndRefusesImpossibleBudgets) {
  const auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 5);
  const ProfileEvaluation eval = evaluate_auto_profile_choice(pts, 6, 2, 9);
  EXPECT_EQ(eval.profiled, 6u);
  EXPECT_EQ(eval.evaluated, pts.size() - 6);
  EXPECT_EQ(eval.random_trials, 2);
  ASSERT_TRUE(eval.design_power_mape && eval.random_power_mape && eval.design_energy_mape);
  EXPECT_LT(*eval.design_time_mape, 5.0);
  EXPECT_THROW(evaluate_auto_profile_choice(pts, 2, 2, 9), std::invalid_argument);
  EXPECT_THROW(evaluate_auto_profile_choice(pts, pts.size(), 2, 9), std::invalid_argument);
}

// analyze fit --profile's comparison: each model evaluated on its design, or told how many modes it
// needs when the profile is too small for it or leaves no mode to score.
TEST(ProfileDesign, ComparisonEvaluatesEachModelOrSaysWhatItNeeds) {
  const auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 5);
  const auto fitted = compare_profile_designs(pts, 6, {ModelKind::kNnls}, false, 9);
  ASSERT_EQ(fitted.size(), 1u);
  EXPECT_EQ(fitted[0].model, to_string(ModelKind::kNnls));
  ASSERT_TRUE(fitted[0].evaluation);
  EXPECT_EQ(fitted[0].evaluation->random_trials, kRandomProfileChoices);
  EXPECT_EQ(fitted[0].evaluation->evaluated, pts.size() - 6);
  // The same numbers as the evaluation it stands for.
  EXPECT_EQ(fitted[0].evaluation->design_time_mape,
            evaluate_profile_choice(ModelKind::kNnls, pts, 6, kRandomProfileChoices, 9).design_time_mape);

  const std::string needs = fmt::format("needs between 3 and {} profiled modes", pts.size() - 1);
  const auto too_few = compare_profile_designs(pts, 2, {ModelKind::kNnls}, true, 9);
  ASSERT_EQ(too_few.size(), 2u);
  EXPECT_FALSE(too_few[0].evaluation);
  EXPECT_EQ(too_few[0].needs, fmt::format("needs between {} and {} profiled modes",
                                          TimeEnergyModel::coefficient_count(ModelKind::kNnls), pts.size() - 1));
  EXPECT_EQ(too_few[1].model, "auto");
  EXPECT_FALSE(too_few[1].evaluation);
  EXPECT_EQ(too_few[1].needs, needs);
  const auto all = compare_profile_designs(pts, pts.size(), {}, true, 9);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].needs, needs);
}

}  // namespace
}  // namespace jetchar::analysis
