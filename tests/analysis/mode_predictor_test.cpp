#include "analysis/mode_predictor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "analysis/adaptive_profile.h"
#include "tests/analysis/ground_truths.h"
#include "tests/analysis/held_out_truths.h"

namespace jetchar::analysis {
namespace {

struct HeldOut {
  double time_mape = 0, power_mape = 0, energy_mape = 0;
  double time_inside = 0, power_inside = 0, count = 0;
  double time_inside_half = 0, power_inside_half = 0;  // in the same fit's 50 % intervals, when asked
};

// Fits on the profiled indices and scores every other mode of the grid (every `stride`-th one)
// against its measured value: errors, and whether the 90 % interval (and with `half_intervals`
// the 50 % one) holds it.
HeldOut held_out(const std::vector<ConfigPoint>& pts, const std::vector<std::size_t>& picked,
                 ModePredictor* out = nullptr, bool half_intervals = false, std::size_t stride = 1) {
  std::vector<ConfigPoint> train;
  std::vector<bool> in(pts.size(), false);
  for (std::size_t i : picked) train.push_back(pts[i]), in[i] = true;
  ModePredictor model = ModePredictor::fit(train);
  HeldOut h;
  for (std::size_t i = 0; i < pts.size(); i += stride) {
    if (in[i]) continue;
    auto pr = model.predict(pts[i].key.mode);
    h.time_mape += std::abs(pr.time_s.value / pts[i].time_s - 1);
    h.power_mape += std::abs(pr.power_w->value / *pts[i].power_w - 1);
    h.energy_mape += std::abs(pr.energy_j->value / *pts[i].energy_j - 1);
    h.time_inside += pts[i].time_s >= pr.time_s.low && pts[i].time_s <= pr.time_s.high;
    h.power_inside += *pts[i].power_w >= pr.power_w->low && *pts[i].power_w <= pr.power_w->high;
    if (half_intervals) {
      const auto half = model.predict(pts[i].key.mode, 0.5);
      h.time_inside_half += pts[i].time_s >= half.time_s.low && pts[i].time_s <= half.time_s.high;
      h.power_inside_half += *pts[i].power_w >= half.power_w->low && *pts[i].power_w <= half.power_w->high;
    }
    ++h.count;
  }
  h.time_mape *= 100 / h.count;
  h.power_mape *= 100 / h.count;
  h.energy_mape *= 100 / h.count;
  if (out) *out = std::move(model);
  return h;
}

// The picked modes of `modes`, measured from truth functions of the knobs with 2 % noise.
template <typename Time, typename Power>
std::vector<ConfigPoint> profile(const std::vector<PowerMode>& modes, const std::vector<std::size_t>& pick, Time time_s,
                                 Power power_w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::vector<ConfigPoint> out;
  for (std::size_t i : pick) {
    ConfigPoint p;
    p.key.mode = modes[i];
    const auto k = ModeKnobs::of(modes[i]);
    p.time_s = time_s(k) * noise(rng);
    p.power_w = power_w(k) * noise(rng);
    out.push_back(p);
  }
  return out;
}

// The goal: from 15 profiled modes (the space-filling design), time MAPE <= 5 % and power
// MAPE <= 3 % over every other mode of a 1,440-mode AGX-Orin-like grid, with 2 % noise, for each
// ground truth (none of them a form of the predictor).
class FifteenModes : public ::testing::TestWithParam<int> {};

TEST_P(FifteenModes, MeetTheGoalOnTheOrinGrid) {
  const auto truth = testing::all_truths()[static_cast<std::size_t>(GetParam())];
  const auto modes = testing::orin_grid_1440();
  const auto pts = testing::measure(modes, truth, 2026);
  ModePredictor model;
  HeldOut h = held_out(pts, space_filling_design(modes, 15), &model);
  EXPECT_LE(h.time_mape, 5.0) << truth.name << " time form " << to_string(model.time_form());
  EXPECT_LE(h.power_mape, 3.0) << truth.name << " power form " << to_string(*model.power_form());
  EXPECT_LE(h.energy_mape, 6.0) << truth.name;
  // The study's linear model misses by far more on the same data (tests/analysis/predictor_test.cpp
  // has its own cases; here only the order of magnitude of the gain matters).
  EXPECT_GT(model.loo_time_mape(), 0);
}

INSTANTIATE_TEST_SUITE_P(EveryGroundTruth, FifteenModes,
                         ::testing::Range(0, static_cast<int>(testing::all_truths().size())), [](const auto& info) {
                           return testing::all_truths()[static_cast<std::size_t>(info.param)].name;
                         });

TEST(ModePredictor, MeetsTheGoalOnAnotherGridShape) {
  const auto modes = testing::xavier_nx_grid_360();
  for (const auto& truth : {testing::gpu_bound(), testing::launch_bound()}) {
    const auto pts = testing::measure(modes, truth, 7);
    HeldOut h = held_out(pts, space_filling_design(modes, 15));
    EXPECT_LE(h.time_mape, 5.0) << truth.name;
    EXPECT_LE(h.power_mape, 3.0) << truth.name;
  }
}

// Truths nobody chose: the first five drawn from the wider family (other work mixes, overlaps, V/f
// curves, leakage and idle draws). prediction_bench --random 30 gives the rest: on the space-filling
// design every time within 5 % and power within 3 % on 27 of 30, the others within 3.14 %.
TEST(ModePredictor, MeetsTheGoalOnTruthsDrawnAtRandom) {
  const auto modes = testing::orin_grid_1440();
  const auto design = space_filling_design(modes, 15);
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const auto truth = testing::random_truth(seed);
    HeldOut h = held_out(testing::measure(modes, truth, 7000 + seed), design);
    EXPECT_LE(h.time_mape, 5.0) << truth.name;
    EXPECT_LE(h.power_mape, 3.0) << truth.name;
  }
}

// Truths built apart from the family above, each with a behaviour no form has (held_out_truths.h),
// on both grids at one noise draw each. prediction_bench --held-out --draws 8 gives their spread.
TEST(ModePredictor, MeetsTheGoalOnTruthsWrittenApartFromTheFamily) {
  for (const auto& modes : {testing::orin_grid_1440(), testing::xavier_nx_grid_360()}) {
    const auto design = space_filling_design(modes, 15);
    std::uint64_t seed = 9000;
    for (const auto& truth : testing::held_out_truths()) {
      HeldOut h = held_out(testing::measure(modes, truth, seed += 31, 0.02), design);
      EXPECT_LE(h.time_mape, 5.0) << truth.name << " on " << modes.size() << " modes";
      EXPECT_LE(h.power_mape, 3.0) << truth.name << " on " << modes.size() << " modes";
    }
  }
}

TEST(ModePredictor, NinetyPercentIntervalsHoldAboutNinetyPercentOfHeldOutModes) {
  // Pooled over the ground truths at one noise draw and two designs (space-filling and random);
  // prediction_bench --coverage pools more draws, noise levels and budgets.
  const auto modes = testing::orin_grid_1440();
  double inside_t = 0, inside_p = 0, n = 0;
  for (const auto& truth : testing::all_truths()) {
    for (std::uint64_t seed : {3u}) {
      const auto pts = testing::measure(modes, truth, seed);
      std::vector<std::size_t> random_pick;
      std::mt19937_64 rng(seed);
      std::uniform_int_distribution<std::size_t> any(0, modes.size() - 1);
      while (random_pick.size() < 15) {
        std::size_t i = any(rng);
        if (std::find(random_pick.begin(), random_pick.end(), i) == random_pick.end()) random_pick.push_back(i);
      }
      for (const auto& pick : {space_filling_design(modes, 15), random_pick}) {
        HeldOut h = held_out(pts, pick);
        inside_t += h.time_inside, inside_p += h.power_inside, n += h.count;
      }
    }
  }
  EXPECT_GE(inside_t / n, 0.85);
  EXPECT_LE(inside_t / n, 0.99);
  EXPECT_GE(inside_p / n, 0.85);
  EXPECT_LE(inside_p / n, 0.995);
}

// Calibration from few modes: over every ground truth and both grid shapes (at 25 modes the
// 360-mode one), each with a random pick of profiled modes (so that the held-out modes are like the
// profiled ones, as jackknife+ assumes), the share of held-out modes inside the stated 90 % interval
// stays near 90 % at 10, 15 and 25 modes (within 80–98 % at each: below 19 modes jackknife+'s upper
// rank is the extreme left-out fit, conservative by construction, and five or ten fits per budget
// leave the share a few points of chance either way), and the same fits' 50 % intervals hold about
// half at 15 modes. At 5 modes, where jackknife+ alone would be unbounded and the predictor widens it
// to a Student-t interval, it holds at least 75 % and not all (measured: 0.80 time, 0.82 power): 5
// modes leave some truths' forms biased beyond what their left-out fits show. Each budget is a test
// of its own; the share pooled over the budgets, 85–95 % when last measured, and the same over more
// seeds, noise levels and both grids at every budget are measured by bench/prediction_bench
// --coverage (bench/README.md).
struct Coverage {
  double time = 0, power = 0;
  double time_half = 0, power_half = 0;  // the 50 % intervals of the same fits
};

Coverage pooled_coverage(std::size_t budget) {
  Coverage c;
  double fits = 0;
  std::vector<std::vector<PowerMode>> grids = {testing::xavier_nx_grid_360()};
  if (budget < 25) grids.push_back(testing::orin_grid_1440());
  for (const auto& modes : grids) {
    for (const auto& truth : testing::all_truths()) {
      const auto pts = testing::measure(modes, truth, 40 + budget);
      std::vector<std::size_t> random_pick;
      std::mt19937_64 rng(budget);
      std::uniform_int_distribution<std::size_t> any(0, modes.size() - 1);
      while (random_pick.size() < budget) {
        std::size_t i = any(rng);
        if (std::find(random_pick.begin(), random_pick.end(), i) == random_pick.end()) random_pick.push_back(i);
      }
      // The 1,440-mode grid scored on every 4th mode, as many as the 360-mode grid: the shares
      // inside are unchanged in expectation and each fit weighs the same.
      HeldOut h = held_out(pts, random_pick, nullptr, true, modes.size() / 360);
      c.time += h.time_inside / h.count, c.power += h.power_inside / h.count;
      c.time_half += h.time_inside_half / h.count, c.power_half += h.power_inside_half / h.count, ++fits;
    }
  }
  c.time /= fits, c.power /= fits, c.time_half /= fits, c.power_half /= fits;
  return c;
}

TEST(ModePredictor, IntervalsFromFiveModesHoldAtLeastThreeQuartersAndNotAll) {
  const Coverage few = pooled_coverage(5);
  EXPECT_GE(few.time, 0.75);
  EXPECT_LE(few.time, 0.97);
  EXPECT_GE(few.power, 0.75);
  EXPECT_LE(few.power, 0.97);
}

class NinetyPercentIntervals : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NinetyPercentIntervals, HoldEightyToNinetyEightPercentOfHeldOutModes) {
  const Coverage c = pooled_coverage(GetParam());
  EXPECT_GE(c.time, 0.80);
  EXPECT_LE(c.time, 0.98);
  EXPECT_GE(c.power, 0.80);
  EXPECT_LE(c.power, 0.98);
  if (GetParam() == 15) {
    EXPECT_GE(c.time_half, 0.35);
    EXPECT_LE(c.time_half, 0.65);
    EXPECT_GE(c.power_half, 0.35);
    EXPECT_LE(c.power_half, 0.65);
  }
}

INSTANTIATE_TEST_SUITE_P(FromTenToTwentyFiveModes, NinetyPercentIntervals, ::testing::Values(10u, 15u, 25u),
                         [](const auto& info) { return std::to_string(info.param) + "_modes"; });

TEST(ModePredictor, ChoosesTheFormByCrossValidation) {
  // A launch-bound workload whose CPU work stops scaling at 2 cores needs the saturating form;
  // a plain sum of 1/f terms needs nothing more than the sum form.
  const auto modes = testing::orin_grid_1440();
  auto pick = space_filling_design(modes, 25);
  std::vector<ConfigPoint> train;
  for (std::size_t i : pick) train.push_back(testing::measure(modes, testing::launch_bound(), 5, 0.005)[i]);
  EXPECT_EQ(ModePredictor::fit(train).time_form(), TimeForm::kSaturating);

  std::vector<ConfigPoint> sum;
  for (std::size_t i : pick) {
    ConfigPoint p;
    p.key.mode = modes[i];
    auto k = ModeKnobs::of(modes[i]);
    p.time_s = 0.4 + 6 / k.gpu_ghz + 2 / k.emc_ghz + (0.5 + 3 / k.cores) / k.cpu_ghz;
    p.power_w = 5 + k.gpu_ghz;
    sum.push_back(p);
  }
  ModePredictor model = ModePredictor::fit(sum);
  EXPECT_EQ(model.time_form(), TimeForm::kSum);
  EXPECT_LT(model.loo_time_mape(), 0.01);
  ASSERT_EQ(model.time_scores().size(), all_time_forms().size());
  EXPECT_EQ(model.time_scores().front().form, "sum");
}

// Power keeps the voltage form unless another one is clearly better on the left-out modes: the
// ground truths' GPUs draw in proportion to their busy share, which the voltage form has; a GPU
// whose clock tree draws whether it is busy or waits on a launch-bound CPU needs the clocked form.
TEST(ModePredictor, KeepsTheVoltageFormUnlessAnotherIsClearlyBetter) {
  const auto modes = testing::orin_grid_1440();
  const auto pick = space_filling_design(modes, 15);
  for (const auto& truth : testing::all_truths()) {
    const auto pts = testing::measure(modes, truth, 3);
    std::vector<ConfigPoint> train;
    for (std::size_t i : pick) train.push_back(pts[i]);
    const ModePredictor model = ModePredictor::fit(train);
    EXPECT_EQ(model.power_form(), PowerForm::kVoltage) << truth.name;
    ASSERT_EQ(model.power_scores().size(), all_power_forms().size());
  }

  auto time_s = [](const ModeKnobs& k) {
    return 0.2 + std::max(7.0 / k.cpu_ghz * (0.55 + 0.45 / std::min(k.cores, 2.0)), 1.2 / k.gpu_ghz + 0.6 / k.emc_ghz);
  };
  auto power_w = [](const ModeKnobs& k) {
    const double vg = std::max(0.6, 0.6 + 0.4 * (k.gpu_ghz - 0.6));
    return 4.5 + 0.12 * k.cores + 0.9 * std::min(k.cores, 2.0) * k.cpu_ghz * 0.5 + 4.5 * k.gpu_ghz * vg * vg +
           1.6 * k.emc_ghz * 0.7;
  };
  EXPECT_EQ(ModePredictor::fit(profile(modes, pick, time_s, power_w, 5)).power_form(), PowerForm::kClocked);
}

// A cubic in a clock profiled at three levels is free to bend between them, and every left-out
// mode shares its level with others, so its left-out error cannot tell: the polynomial and
// activity forms are judged only when every clock has four levels among the profiled modes. (On
// this truth, 18 modes of this 3-level grid once chose the polynomial form, which missed the power
// of the modes between the levels by 2.2 % and held the truth in its 90 % interval for 68 % of them.)
TEST(ModePredictor, JudgesTheCubicPowerFormsOnlyWhereEveryClockHasFourLevels) {
  auto time_s = [](const ModeKnobs& k) {
    return 0.3 + std::pow(std::pow(9 / k.gpu_ghz, 4) + std::pow(3 / k.emc_ghz, 4), 0.25) +
           (0.3 + 0.7 / std::min(k.cores, 4.0)) / k.cpu_ghz;
  };
  auto power_w = [](const ModeKnobs& k) {
    return 4.5 + 0.1 * k.cores + 0.9 * k.cores * k.cpu_ghz * std::pow(0.6 + 0.25 * k.cpu_ghz, 2) +
           11 * k.gpu_ghz * std::pow(0.6 + 0.4 * k.gpu_ghz, 2) + 1.6 * k.emc_ghz;
  };
  auto judged = [&](const std::vector<PowerMode>& modes) {
    std::vector<std::size_t> all(modes.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const ModePredictor model = ModePredictor::fit(profile(modes, all, time_s, power_w, 7));
    std::vector<std::string> out;
    for (const FormScore& s : model.power_scores())
      if (s.loo_mape) out.push_back(s.form);
    return out;
  };
  using ::testing::ElementsAre;
  EXPECT_THAT(judged(testing::grid_of({2, 4, 8}, {0.73, 1.34, 2.2}, {0.306, 0.714, 1.3}, {0.665, 2.133, 3.199})),
              ElementsAre("voltage", "clocked", "power_law"));
  EXPECT_THAT(
      judged(testing::grid_of({2, 8}, {0.73, 1.34, 1.8, 2.2}, {0.306, 0.714, 1.0, 1.3}, {0.665, 1.6, 2.133, 3.199})),
      ElementsAre("voltage", "clocked", "polynomial", "activity", "power_law"));
}

// A workload whose every clock scales the whole epoch and the whole draw (products of powers of
// the knobs, no term adding to another) gets the power-law forms: no sum of per-resource or
// per-rail terms follows them (on this truth, from the adaptive loop's 15 modes, the physical
// forms alone missed time by about 5 % and power by about 3 %: bench/README.md).
TEST(ModePredictor, TakesThePowerLawFormsForProductsOfPowers) {
  const auto modes = testing::orin_grid_1440();
  const auto pick = space_filling_design(modes, 15);
  auto time_s = [](const ModeKnobs& k) {
    return 3 * std::pow(k.gpu_ghz, -0.7) * std::pow(k.emc_ghz, -0.25) * std::pow(k.cpu_ghz, -0.15) *
           std::pow(0.6 + 0.4 / std::min(k.cores, 4.0), 0.3);
  };
  auto power_w = [](const ModeKnobs& k) {
    return 9 * std::pow(k.cores, 0.05) * std::pow(k.cpu_ghz, 0.25) * std::pow(k.gpu_ghz, 0.9) *
           std::pow(k.emc_ghz, 0.2);
  };
  const ModePredictor model = ModePredictor::fit(profile(modes, pick, time_s, power_w, 3));
  EXPECT_EQ(model.time_form(), TimeForm::kPowerLaw);
  EXPECT_EQ(model.power_form(), PowerForm::kPowerLaw);
  double time_mape = 0, power_mape = 0;
  for (const PowerMode& m : modes) {
    const auto k = ModeKnobs::of(m);
    const ModePrediction p = model.predict(m);
    time_mape += std::abs(p.time_s.value / time_s(k) - 1);
    power_mape += std::abs(p.power_w->value / power_w(k) - 1);
  }
  // The cores' effect is not a power of c, so time keeps a little bias.
  EXPECT_LT(100 * time_mape / static_cast<double>(modes.size()), 2.5);
  EXPECT_LT(100 * power_mape / static_cast<double>(modes.size()), 1.5);
}

TEST(ModePredictor, IntervalsWidenAwayFromTheProfiledModes) {
  const auto modes = testing::orin_grid_1440();
  const auto pts = testing::measure(modes, testing::balanced(), 9);
  // Profile only modes with 4 or more cores: a 1-core prediction is an extrapolation.
  std::vector<ConfigPoint> train;
  for (std::size_t i : space_filling_design(modes, 60)) {
    if (*pts[i].key.mode.cpu_cores >= 4 && train.size() < 15) train.push_back(pts[i]);
  }
  ModePredictor model = ModePredictor::fit(train);
  auto inside = model.predict(testing::grid_mode(6, 1.3440, 0.714, 2.133));
  auto outside = model.predict(testing::grid_mode(1, 0.7296, 0.306, 0.6656));
  auto width = [](const Interval& i) { return std::log(i.high / i.low); };
  EXPECT_GT(width(outside.time_s), width(inside.time_s));
  // The left-out fits (one per profiled mode) disagree more there too.
  auto spread = [&](const PowerMode& m) {
    const auto folds = model.fold_predictions(m);
    EXPECT_EQ(folds.log_time.size(), 15u);
    EXPECT_EQ(folds.log_power.size(), 15u);
    const auto [lo, hi] = std::minmax_element(folds.log_time.begin(), folds.log_time.end());
    return *hi - *lo;
  };
  EXPECT_GT(spread(testing::grid_mode(1, 0.7296, 0.306, 0.6656)), spread(testing::grid_mode(6, 1.3440, 0.714, 2.133)));
  EXPECT_LE(inside.time_s.low, inside.time_s.value);
  EXPECT_GE(inside.time_s.high, inside.time_s.value);
}

TEST(ModePredictor, ManyProfiledModesUseFoldsAndStayAccurate) {
  // 200 profiled modes: 20 interleaved folds instead of 200 left-out fits (CV+).
  const auto modes = testing::orin_grid_1440();
  const auto pts = testing::measure(modes, testing::balanced(), 12);
  std::vector<std::size_t> pick;
  for (std::size_t i = 0; i < modes.size(); i += 7) pick.push_back(i);
  ASSERT_GT(pick.size(), 200u);
  HeldOut h = held_out(pts, pick);
  EXPECT_LE(h.time_mape, 2.5);
  EXPECT_LE(h.power_mape, 2.5);
  EXPECT_GE(h.time_inside / h.count, 0.85);
  EXPECT_GE(h.power_inside / h.count, 0.85);
}

TEST(ModePredictor, WithoutPowerPredictsTimeOnly) {
  const auto modes = testing::orin_grid_1440();
  auto pts = testing::measure(modes, testing::gpu_bound(), 1);
  std::vector<ConfigPoint> train;
  for (std::size_t i : space_filling_design(modes, 10)) {
    train.push_back(pts[i]);
    train.back().power_w.reset();
  }
  ModePredictor model = ModePredictor::fit(train);
  auto pr = model.predict(modes[100]);
  EXPECT_FALSE(pr.power_w);
  EXPECT_FALSE(pr.energy_j);
  EXPECT_FALSE(model.power_form());
  EXPECT_GT(pr.time_s.value, 0);
}

TEST(ModePredictor, BadInputIsNamed) {
  const auto modes = testing::orin_grid_1440();
  auto pts = testing::measure(modes, testing::gpu_bound(), 1);
  std::vector<ConfigPoint> two(pts.begin(), pts.begin() + 2);
  EXPECT_THAT([&] { ModePredictor::fit(two); }, ::testing::ThrowsMessage<std::invalid_argument>(
                                                    ::testing::HasSubstr("at least 3 profiled modes; got 2")));
  std::vector<ConfigPoint> five(pts.begin(), pts.begin() + 5);
  ModePredictorOptions options;
  options.level = 1.5;
  EXPECT_THAT([&] { ModePredictor::fit(five, options); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("level 1.5 is outside (0, 1)")));
  five[2].key.mode.emc_freq_khz.reset();
  EXPECT_THAT([&] { ModePredictor::fit(five); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("lacks a knob")));
}

}  // namespace
}  // namespace jetchar::analysis
