// The stored mode predictions as analysis reads them (a store created with the DDL the writer
// executes, results/schema/store_schema.h) and the predicted Pareto front over measured
// and predicted modes, checked against a brute-force front on random planes.
#include "analysis/mode_predictions.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "analysis/input_error.h"
#include "analysis/results_store_reader.h"
#include "results/schema/store_schema.h"
#include "tests/support/temp_dir.h"

namespace jetchar::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct PredictionsStore {
  explicit PredictionsStore(const fs::path& file, bool with_predictions = true)
      : db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE) {
    db.exec("PRAGMA synchronous=OFF");
    db.exec(std::string(results::schema::kResultsStoreMetaTable) + ";\n" + results::schema::kResultsStoreSchema);
    // The newest version the reader knows: the table is the same in every version that has it.
    db.exec(fmt::format("INSERT INTO meta VALUES ('schema_version', '{}')", ResultsStoreReader::kNewestSchemaVersion));
    if (with_predictions) db.exec(std::string(results::schema::kModePredictionsTable));
  }
  // One row as the adaptive sweep writes it (results/mode_predictions_store.cpp); `power`
  // false leaves the power and energy columns NULL.
  void row(const std::string& sweep, int cores, int gpu_mhz, bool profiled, double time, double time_low,
           double time_high, bool power = true, double watts = 20) {
    const std::string label = fmt::format("{}c/cpu2202/gpu{}/emc3199MHz", cores, gpu_mhz);
    db.exec(fmt::format(
        "INSERT INTO mode_predictions VALUES ('{}', '{}', {}, 2201600, {}, 3199000, {}, {}, {}, {}, {}, {}, {}, {}, "
        "{}, {}, {}, {}, 0.9, 'nested', '{}', 1)",
        sweep, label, cores, gpu_mhz * 1000, profiled ? 1 : 0, time, time_low, time_high,
        power ? fmt::format("{}", watts) : "NULL", power ? fmt::format("{}", watts * 0.95) : "NULL",
        power ? fmt::format("{}", watts * 1.05) : "NULL", power ? fmt::format("{}", watts * time) : "NULL",
        power ? fmt::format("{}", watts * time * 0.9) : "NULL", power ? fmt::format("{}", watts * time * 1.1) : "NULL",
        profiled ? fmt::format("{}", time * 1.01) : "NULL",
        profiled && power ? fmt::format("{}", watts * 0.99) : "NULL", power ? "voltage" : ""));
  }
  SQLite::Database db;
};

std::string predictions_error_of(const fs::path& path) {
  try {
    ResultsStoreReader(path).mode_predictions();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ModePredictionsReader, ReadsEveryRowTheSweepStored) {
  jetchar::testing::TempDir dir;
  {
    PredictionsStore store(dir.path() / "results.db");
    store.row("ap", 8, 1300, true, 2.0, 1.9, 2.1);
    store.row("ap", 4, 306, false, 6.0, 5.0, 7.5);
    store.row("other", 12, 714, false, 3.0, 2.5, 3.5, false);
  }
  const auto rows = ResultsStoreReader(dir.path()).mode_predictions();
  ASSERT_EQ(rows.size(), 3u);
  // By sweep, then by cores and clocks.
  EXPECT_EQ(rows[0].sweep, "ap");
  EXPECT_EQ(rows[0].mode.cpu_cores, 4);
  EXPECT_EQ(rows[0].mode.name, "4c/cpu2202/gpu306/emc3199MHz");
  EXPECT_EQ(rows[0].mode.gpu_freq_khz, 306000);
  EXPECT_FALSE(rows[0].profiled);
  EXPECT_DOUBLE_EQ(rows[0].time_s.value, 6.0);
  EXPECT_DOUBLE_EQ(rows[0].time_s.low, 5.0);
  EXPECT_DOUBLE_EQ(rows[0].time_s.high, 7.5);
  ASSERT_TRUE(rows[0].energy_j);
  EXPECT_DOUBLE_EQ(rows[0].energy_j->value, 120.0);
  EXPECT_FALSE(rows[0].measured_time_s);
  EXPECT_TRUE(rows[1].profiled);
  EXPECT_DOUBLE_EQ(*rows[1].measured_time_s, 2.02);
  EXPECT_DOUBLE_EQ(*rows[1].measured_power_w, 19.8);
  EXPECT_EQ(rows[1].time_form, "nested");
  EXPECT_EQ(rows[1].power_form, "voltage");
  EXPECT_TRUE(rows[1].modelled);
  EXPECT_DOUBLE_EQ(rows[1].level, 0.9);
  EXPECT_EQ(rows[2].sweep, "other");
  EXPECT_FALSE(rows[2].power_w);
  EXPECT_FALSE(rows[2].energy_j);
}

TEST(ModePredictionsReader, AStoreWithoutPredictionsHasNone) {
  jetchar::testing::TempDir dir;
  { PredictionsStore store(dir.path() / "results.db", false); }
  EXPECT_TRUE(ResultsStoreReader(dir.path()).mode_predictions().empty());
}

TEST(ModePredictionsReader, ARowThatIsNotAPredictionIsNamed) {
  jetchar::testing::TempDir dir;
  const fs::path file = dir.path() / "results.db";
  {
    PredictionsStore store(file);
    store.row("ap", 8, 1300, false, 2.0, 2.5, 3.0);  // low above the value
  }
  EXPECT_THAT(predictions_error_of(file),
              HasSubstr("mode_predictions: sweep ap mode 8c/cpu2202/gpu1300/emc3199MHz: time_low_s 2.5 "
                        "is above its value 2"));
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE mode_predictions SET time_low_s = 1.5, power_high_w = -1");
  }
  EXPECT_THAT(predictions_error_of(file), HasSubstr("power_high_w -1 is not a positive number"));
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE mode_predictions SET power_high_w = 30, level = 90");
  }
  EXPECT_THAT(predictions_error_of(file), HasSubstr("level 90 is not a coverage in (0, 1)"));
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE mode_predictions SET level = 0.9, power_w = NULL");
  }
  EXPECT_THAT(predictions_error_of(file), HasSubstr("power_w NULL is missing while its interval bounds are given"));
}

// The choice a sweep with an objective stored, as analysis reads it; a row that is not a choice
// is named with its column and value.
TEST(ModeChoicesReader, ReadsTheChoiceAndNamesARowThatIsNotOne) {
  jetchar::testing::TempDir dir;
  const fs::path file = dir.path() / "results.db";
  {
    PredictionsStore store(file);
    EXPECT_TRUE(ResultsStoreReader(file).mode_choices().empty());  // no table: none
    store.db.exec(std::string(results::schema::kModeChoicesTable));
    store.db.exec(
        "INSERT INTO mode_choices VALUES ('ap', 'least energy with epoch time <= 2 s', 0.9, "
        "'8c/cpu2202/gpu1300/emc3199MHz', 0, 12, 16, 1.9, 38.5, 0.25, 0.8)");
    store.db.exec(
        "INSERT INTO mode_choices VALUES ('b', 'least energy with epoch time <= 0.1 s', 0.95, NULL, 0, 0, "
        "16, NULL, NULL, NULL, NULL)");
  }
  const auto choices = ResultsStoreReader(file).mode_choices();
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(choices[0].sweep, "ap");
  EXPECT_EQ(choices[0].budget, "least energy with epoch time <= 2 s");
  EXPECT_EQ(choices[0].mode, "8c/cpu2202/gpu1300/emc3199MHz");
  EXPECT_FALSE(choices[0].measured);
  EXPECT_EQ(choices[0].eligible, 12u);
  EXPECT_EQ(choices[0].modes, 16u);
  EXPECT_EQ(choices[0].time_s, 1.9);
  EXPECT_EQ(choices[0].energy_j, 38.5);
  EXPECT_EQ(choices[0].expected_regret_pct, 0.25);
  EXPECT_EQ(choices[0].within_one_pct_probability, 0.8);
  EXPECT_FALSE(choices[1].mode);
  EXPECT_DOUBLE_EQ(choices[1].confidence, 0.95);

  const auto error = [&] {
    try {
      ResultsStoreReader(file).mode_choices();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto set = [&](const std::string& assignment) {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE mode_choices SET " + assignment + " WHERE sweep = 'ap'");
  };
  set("confidence = 1.5");
  EXPECT_THAT(error(), HasSubstr("mode_choices: sweep ap: confidence 1.5 is not a confidence in (0.5, 1)"));
  set("confidence = 0.9, eligible = 17");
  EXPECT_THAT(error(), HasSubstr("mode_choices: sweep ap: eligible 17 is more than the 16 modes"));
  set("eligible = 12, within_one_pct_probability = 2");
  EXPECT_THAT(error(), HasSubstr("within_one_pct_probability 2 is not a probability in [0, 1]"));
  set("within_one_pct_probability = 0.8, time_s = -1");
  EXPECT_THAT(error(), HasSubstr("time_s -1 is not a positive number"));
  set("time_s = 1.9, measured = 'yes'");
  EXPECT_THAT(error(), HasSubstr("measured yes is not 0 or 1"));
}

StoredModePrediction predicted(const std::string& sweep, double time, double energy, double spread) {
  StoredModePrediction p;
  p.sweep = sweep;
  p.time_s = {time, time * (1 - spread), time * (1 + spread)};
  p.power_w = Interval{energy / time, energy / time * (1 - spread), energy / time * (1 + spread)};
  p.energy_j = Interval{energy, energy * (1 - spread), energy * (1 + spread)};
  return p;
}

StoredModePrediction measured(const std::string& sweep, double time, double power) {
  StoredModePrediction p = predicted(sweep, time * 1.2, time * power * 1.2, 0.1);  // the fit's own values differ
  p.profiled = true;
  p.measured_time_s = time;
  p.measured_power_w = power;
  return p;
}

TEST(PredictedParetoFront, MeasuredModesStandAtTheirMeasuredValuesAndPredictedOnesAtTheirPredictions) {
  std::vector<StoredModePrediction> modes = {
      measured("ap", 2.0, 50),          // 100 J: front
      predicted("ap", 1.0, 150, 0.05),  // the fastest: front
      predicted("ap", 3.0, 60, 0.05),   // cheapest: front
      predicted("ap", 4.0, 200, 0.05),  // dominated by everything faster and cheaper
      predicted("ap", 2.1, 104, 0.10),  // just off the front, but its interval reaches it
  };
  modes.push_back(measured("ap", 5.0, 40));  // 200 J, slowest: dominated
  StoredModePrediction no_energy = predicted("ap", 0.5, 10, 0.1);
  no_energy.power_w.reset();
  no_energy.energy_j.reset();
  modes.push_back(no_energy);  // left out: nothing to place it on the plane
  const auto fronts = predicted_pareto_fronts(modes);
  ASSERT_EQ(fronts.size(), 1u);
  const PredictedParetoFront& f = fronts[0];
  ASSERT_EQ(f.points.size(), 6u);
  std::vector<std::size_t> on_front;
  for (std::size_t i : f.front) on_front.push_back(f.points[i].prediction);
  EXPECT_THAT(on_front, ::testing::ElementsAre(1u, 0u, 2u));
  EXPECT_EQ(f.measured_on_front, 1u);
  EXPECT_EQ(f.predicted_on_front, 2u);
  for (const auto& p : f.points) {
    if (p.prediction == 0) {
      EXPECT_TRUE(p.measured);
      EXPECT_DOUBLE_EQ(p.time_s, 2.0);
      EXPECT_DOUBLE_EQ(p.energy_j, 100.0);
      EXPECT_DOUBLE_EQ(p.time_low_s, p.time_high_s);
    }
    if (p.prediction == 3) {
      EXPECT_FALSE(p.may_be_on_front);
    }
    if (p.prediction == 4) {
      EXPECT_FALSE(p.on_front);
      EXPECT_TRUE(p.may_be_on_front);
    }
    if (p.prediction == 5) {
      EXPECT_FALSE(p.may_be_on_front);
    }
    if (p.on_front) {
      EXPECT_TRUE(p.may_be_on_front);
    }
  }
}

TEST(PredictedParetoFront, OneFrontPerSweep) {
  const auto fronts =
      predicted_pareto_fronts({predicted("b", 1, 10, 0.1), predicted("a", 2, 5, 0.1), predicted("b", 2, 20, 0.1)});
  ASSERT_EQ(fronts.size(), 2u);
  EXPECT_EQ(fronts[0].sweep, "b");
  EXPECT_EQ(fronts[0].points.size(), 2u);
  EXPECT_EQ(fronts[0].front.size(), 1u);
  EXPECT_EQ(fronts[1].sweep, "a");
}

// may_be_on_front against its definition, pair by pair, on random intervals (with ties).
TEST(PredictedParetoFront, MayBeOnFrontMatchesItsDefinitionOnRandomModes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> level(1, 12);
  std::uniform_real_distribution<double> spread(0, 0.3);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<StoredModePrediction> modes;
    for (int i = 0; i < 40; ++i) {
      if (i % 7 == 0) {
        modes.push_back(measured("s", level(rng), level(rng)));
      } else {
        modes.push_back(predicted("s", level(rng), level(rng) * 10, i % 5 == 0 ? 0 : spread(rng)));
      }
    }
    const auto f = predicted_pareto_fronts(modes).at(0);
    for (std::size_t i = 0; i < f.points.size(); ++i) {
      bool dominated = false;
      for (std::size_t j = 0; j < f.points.size(); ++j) {
        const auto& a = f.points[j];
        const auto& b = f.points[i];
        dominated = dominated || (a.time_high_s <= b.time_low_s && a.energy_high_j <= b.energy_low_j &&
                                  (a.time_high_s < b.time_low_s || a.energy_high_j < b.energy_low_j));
      }
      EXPECT_EQ(f.points[i].may_be_on_front, f.points[i].on_front || !dominated) << "trial " << trial << " point " << i;
    }
  }
}

}  // namespace
}  // namespace jetchar::analysis
