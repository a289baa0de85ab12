#include "analysis/cross_validation.h"

#include <gtest/gtest.h>

#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

TEST(CrossValidation, MapeByHand) {
  std::vector<PredictedVsMeasured> rows = {{{}, 10, 11, 100, 90}, {{}, 20, 18, 200, std::nullopt}};
  EXPECT_DOUBLE_EQ(*mape_time(rows), 100 * (0.1 + 0.1) / 2);
  EXPECT_DOUBLE_EQ(*mape_energy(rows), 10);
  rows[0].measured_time_s = 0;
  EXPECT_FALSE(mape_time(rows));
  EXPECT_FALSE(mape_time({}));
}

TEST(CrossValidation, ExactDataGivesZeroError) {
  testing::GroundTruth truth;
  truth.noise = 0;
  auto pts = testing::synthetic_points(testing::orin_like_grid(), truth, 1);
  Validation v = cross_validate(ModelKind::kResource, pts, 4, 1);
  EXPECT_EQ(v.folds, 4);
  EXPECT_NEAR(*v.loo_time_mape, 0, 1e-6);
  EXPECT_NEAR(*v.kfold_time_mape, 0, 1e-6);
  EXPECT_NEAR(*v.kfold_energy_mape, 0, 1e-6);
}

TEST(CrossValidation, TooFewPointsLeaveMapeUnset) {
  auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 1);
  pts.resize(5);
  Validation v = cross_validate(ModelKind::kLinear, pts, 5, 1);  // 5 coefficients: LOO trains on 4
  EXPECT_FALSE(v.loo_time_mape);
  EXPECT_FALSE(v.kfold_time_mape);
  EXPECT_TRUE(v.loo.empty());
}

TEST(CrossValidation, GroupsByWorkloadAndAxesAndDropsModesWithoutKnobs) {
  auto a = testing::synthetic_points(testing::orin_like_grid(), {}, 1, "lenet");
  auto b = testing::synthetic_points(testing::orin_like_grid(), {}, 2, "vgg11");
  std::vector<ConfigPoint> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  all[0].key.axes["batch"] = "64";
  all[1].key.mode.cpu_cores.reset();
  auto groups = mode_groups(all);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].label(), "lenet");
  EXPECT_EQ(groups[0].points.size(), a.size() - 2);
  EXPECT_EQ(groups[1].label(), "lenet batch=64");
  EXPECT_EQ(groups[2].points.size(), b.size());
}

}  // namespace
}  // namespace jetchar::analysis
