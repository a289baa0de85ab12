// Predicted power modes beside a sweep's runs: stored and read back whole, replaced per sweep,
// beside a results store's own tables; a store without predictions reads as none.
#include "results/mode_predictions_store.h"

#include <gtest/gtest.h>

#include "results/store.h"
#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

StoredModePrediction prediction(const std::string& mode, int cores, bool profiled) {
  StoredModePrediction p;
  p.mode = mode;
  p.cpu_cores = cores;
  p.cpu_freq_khz = 2201600;
  p.gpu_freq_khz = 1300500;
  p.emc_freq_khz = 3199000;
  p.profiled = profiled;
  p.time_s = 1.5;
  p.time_low_s = 1.4;
  p.time_high_s = 1.7;
  if (profiled) {
    p.power_w = 20;
    p.power_low_w = 19;
    p.power_high_w = 21.5;
    p.energy_j = 30;
    p.energy_low_j = 27;
    p.energy_high_j = 35;
    p.measured_time_s = 1.52;
    p.measured_power_w = 20.3;
  }
  p.level = 0.9;
  p.time_form = "nested";
  p.power_form = "voltage";
  p.modelled = true;
  return p;
}

TEST(ModePredictionsStoreTest, RoundTripBesideTheRunsAndReplacedPerSweep) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  ResultsStore store(file);  // the sweep's store holds the file open meanwhile, as during a sweep
  EXPECT_TRUE(load_mode_predictions(file, "s").empty());
  save_mode_predictions(
      file, "s",
      {prediction("4c/cpu2202/gpu1300/emc3199MHz", 4, true), prediction("12c/cpu2202/gpu1300/emc3199MHz", 12, false)});
  save_mode_predictions(file, "other", {prediction("8c/cpu2202/gpu1300/emc3199MHz", 8, false)});
  const auto loaded = load_mode_predictions(file, "s");
  ASSERT_EQ(loaded.size(), 2u);
  const auto& profiled = loaded[1];  // mode order: "12c..." < "4c..."
  EXPECT_EQ(profiled.mode, "4c/cpu2202/gpu1300/emc3199MHz");
  EXPECT_TRUE(profiled.profiled);
  EXPECT_EQ(profiled.cpu_cores, 4);
  EXPECT_EQ(profiled.gpu_freq_khz, 1300500);
  EXPECT_DOUBLE_EQ(profiled.time_high_s, 1.7);
  EXPECT_EQ(profiled.power_w, 20);
  EXPECT_EQ(profiled.energy_high_j, 35);
  EXPECT_EQ(profiled.measured_power_w, 20.3);
  EXPECT_EQ(profiled.time_form, "nested");
  EXPECT_TRUE(profiled.modelled);
  const auto& predicted = loaded[0];
  EXPECT_FALSE(predicted.profiled);
  EXPECT_FALSE(predicted.power_w.has_value());
  EXPECT_FALSE(predicted.measured_time_s.has_value());
  // A second save replaces the sweep's rows and leaves the other sweep's.
  save_mode_predictions(file, "s", {prediction("8c/cpu2202/gpu1300/emc3199MHz", 8, false)});
  EXPECT_EQ(load_mode_predictions(file, "s").size(), 1u);
  EXPECT_EQ(load_mode_predictions(file, "other").size(), 1u);
  // The store itself still opens and works.
  EXPECT_TRUE(store.load_all("s").empty());
  ResultsStore reopened(file, ResultsStore::Access::kReadOnly);
  EXPECT_TRUE(reopened.sweeps().empty());
}

// A sweep with an objective stores its choice with its predictions: read back whole, NULLs where
// no mode was eligible, and gone when the sweep is stored again without an objective.
TEST(ModePredictionsStoreTest, TheChoiceIsStoredWithThePredictionsAndReplacedWithThem) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  ResultsStore store(file);
  EXPECT_FALSE(load_mode_choice(file, "s"));
  StoredModeChoice choice;
  choice.budget = "least energy with epoch time <= 2 s";
  choice.confidence = 0.95;
  choice.mode = "4c/cpu2202/gpu1300/emc3199MHz";
  choice.measured = true;
  choice.eligible = 1;
  choice.modes = 2;
  choice.time_s = 1.52;
  choice.energy_j = 30.9;
  choice.expected_regret_pct = 0.4;
  choice.within_one_pct_probability = 0.85;
  const std::vector<StoredModePrediction> predictions = {prediction("4c/cpu2202/gpu1300/emc3199MHz", 4, true),
                                                         prediction("12c/cpu2202/gpu1300/emc3199MHz", 12, false)};
  save_mode_predictions(file, "s", predictions, choice);
  const auto loaded = load_mode_choice(file, "s");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->budget, choice.budget);
  EXPECT_DOUBLE_EQ(loaded->confidence, 0.95);
  EXPECT_EQ(loaded->mode, choice.mode);
  EXPECT_TRUE(loaded->measured);
  EXPECT_EQ(loaded->eligible, 1);
  EXPECT_EQ(loaded->modes, 2);
  EXPECT_EQ(loaded->time_s, 1.52);
  EXPECT_EQ(loaded->energy_j, 30.9);
  EXPECT_EQ(loaded->expected_regret_pct, 0.4);
  EXPECT_EQ(loaded->within_one_pct_probability, 0.85);
  EXPECT_FALSE(load_mode_choice(file, "other"));

  StoredModeChoice none;
  none.budget = "least energy with epoch time <= 0.1 s";
  none.modes = 2;
  save_mode_predictions(file, "s", predictions, none);
  const auto unmet = load_mode_choice(file, "s");
  ASSERT_TRUE(unmet);
  EXPECT_FALSE(unmet->mode);
  EXPECT_EQ(unmet->eligible, 0);
  EXPECT_FALSE(unmet->time_s);
  EXPECT_FALSE(unmet->expected_regret_pct);

  save_mode_predictions(file, "s", predictions);
  EXPECT_FALSE(load_mode_choice(file, "s"));
  EXPECT_EQ(load_mode_predictions(file, "s").size(), 2u);
}

}  // namespace
}  // namespace jetchar::results
