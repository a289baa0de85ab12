#include "analysis/predictor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/cross_validation.h"
#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

using testing::make_mode;

ConfigPoint exact_point(const PowerMode& m, double time_s, double power_w) {
  ConfigPoint p;
  p.key.workload = "w";
  p.key.mode = m;
  p.time_s = time_s;
  p.power_w = power_w;
  p.energy_j = time_s * power_w;
  return p;
}

std::vector<PowerMode> predictor_test_grid() {
  std::vector<PowerMode> modes;
  for (int cores : {2, 4, 6})
    for (double cpu : {1.0, 2.0})
      for (double gpu : {0.5, 1.0})
        for (double emc : {1.6, 3.2}) modes.push_back(make_mode(cores, cpu, gpu, emc));
  return modes;
}

TEST(Predictor, LinearModelFitsALinearTableExactly) {
  // t = 50 − 4·f_cpu − 2·c − 10·f_gpu − 3·f_emc, P = 5 + 1·f_cpu + 0.5·c + 6·f_gpu + 2·f_emc.
  std::vector<ConfigPoint> pts;
  for (const auto& m : predictor_test_grid()) {
    const double c = static_cast<double>(*m.cpu_cores);
    const double f = static_cast<double>(*m.cpu_freq_khz) / 1e6;
    const double g = static_cast<double>(*m.gpu_freq_khz) / 1e6;
    const double e = static_cast<double>(*m.emc_freq_khz) / 1e6;
    pts.push_back(exact_point(m, 50 - 4 * f - 2 * c - 10 * g - 3 * e, 5 + f + 0.5 * c + 6 * g + 2 * e));
  }
  auto model = TimeEnergyModel::fit(ModelKind::kLinear, pts);
  Eigen::VectorXd expected(5);
  expected << 50, -4, -2, -10, -3;
  EXPECT_TRUE(model.time_coefficients().isApprox(expected, 1e-9)) << model.time_coefficients().transpose();
  auto unseen = make_mode(8, 1.5, 0.75, 2.0);
  auto pred = model.predict(unseen);
  double t = 50 - 4 * 1.5 - 16 - 7.5 - 6, p = 5 + 1.5 + 4 + 4.5 + 4;
  EXPECT_NEAR(pred.time_s, t, 1e-9);
  EXPECT_NEAR(*pred.power_w, p, 1e-9);
  EXPECT_NEAR(*pred.energy_j, t * p, 1e-8);
}

TEST(Predictor, ResourceAndNnlsModelsFitAnInverseTableExactly) {
  testing::GroundTruth truth;
  truth.noise = 0;
  std::vector<ConfigPoint> pts;
  for (const auto& m : predictor_test_grid())
    pts.push_back(exact_point(m, testing::true_time_s(m, truth), testing::true_power_w(m)));
  for (ModelKind kind : {ModelKind::kResource, ModelKind::kNnls}) {
    auto model = TimeEnergyModel::fit(kind, pts);
    Eigen::VectorXd expected(4);
    expected << truth.fixed_s, truth.cpu_work, truth.gpu_work, truth.mem_work;
    EXPECT_TRUE(model.time_coefficients().isApprox(expected, 1e-8)) << to_string(kind);
    auto unseen = make_mode(12, 2.2, 1.3, 0.665);
    EXPECT_NEAR(model.predict(unseen).time_s, testing::true_time_s(unseen, truth), 1e-8);
    EXPECT_NEAR(*model.predict(unseen).power_w, testing::true_power_w(unseen), 1e-8);
  }
}

TEST(Predictor, NnlsKeepsCoefficientsNonNegative) {
  // Time that falls with more memory bandwidth but a noisy sample makes plain least squares give
  // the GPU term a negative weight; NNLS must not.
  std::vector<ConfigPoint> pts;
  double noise[] = {1.0, 0.9, 1.1, 1.05, 0.95, 1.0, 1.1, 0.9};
  int i = 0;
  for (double emc : {0.8, 1.6, 2.4, 3.2})
    for (double gpu : {0.5, 1.0}) {
      auto m = make_mode(4, 2.0, gpu, emc);
      pts.push_back(exact_point(m, (2 + 6 / emc) * noise[i++], 10));
    }
  auto model = TimeEnergyModel::fit(ModelKind::kNnls, pts);
  EXPECT_TRUE((model.time_coefficients().array() >= 0).all()) << model.time_coefficients().transpose();
}

TEST(Predictor, InverseFrequencyModelsBeatTheLinearOneOnInverseGroundTruth) {
  auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 11);
  std::map<ModelKind, double> time_mape, energy_mape;
  for (ModelKind kind : all_model_kinds()) {
    Validation v = cross_validate(kind, pts, 5, 3);
    ASSERT_TRUE(v.loo_time_mape && v.kfold_time_mape && v.loo_energy_mape) << to_string(kind);
    time_mape[kind] = *v.loo_time_mape;
    energy_mape[kind] = *v.loo_energy_mape;
    EXPECT_EQ(v.loo.size(), pts.size());
  }
  EXPECT_GT(time_mape[ModelKind::kLinear], 10.0);   // a line cannot follow 1/f
  EXPECT_LT(time_mape[ModelKind::kResource], 2.0);  // noise is 1 %
  EXPECT_LT(time_mape[ModelKind::kNnls], 2.0);
  EXPECT_LT(time_mape[ModelKind::kInverse], time_mape[ModelKind::kLinear]);
  EXPECT_LT(energy_mape[ModelKind::kNnls], energy_mape[ModelKind::kLinear]);
}

TEST(Predictor, ClearErrorsForMissingKnobsAndTooFewModes) {
  auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 1);
  std::vector<ConfigPoint> three(pts.begin(), pts.begin() + 3);
  try {
    TimeEnergyModel::fit(ModelKind::kLinear, three);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("needs at least 5 profiled modes; got 3"));
  }
  auto model = TimeEnergyModel::fit(ModelKind::kResource, pts);
  PowerMode named;
  named.name = "MAXN";
  try {
    model.predict(named);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("power mode 'MAXN' lacks a knob"));
  }
  EXPECT_THROW(parse_model_kind("cubic"), std::invalid_argument);
  EXPECT_EQ(parse_model_kind("nnls"), ModelKind::kNnls);
}

TEST(Predictor, WithoutPowerNoEnergyIsPredicted) {
  auto pts = testing::synthetic_points(testing::orin_like_grid(), {}, 1);
  for (auto& p : pts) p.power_w.reset();
  auto model = TimeEnergyModel::fit(ModelKind::kResource, pts);
  EXPECT_FALSE(model.predict(pts[0].key.mode).energy_j);
}

}  // namespace
}  // namespace jetchar::analysis
