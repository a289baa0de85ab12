// `jetchar analyze fit|predict --json` through the real jetchar: the auto model (the mode predictor,
// analysis/mode_predictor.h) names the forms cross-validation chose, and every prediction carries
// its interval; the CSV carries the same bounds; a bad interval level is bad input (exit 3).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;

// Epoch time with GPU and memory work overlapping (a 4-norm) plus CPU launch work that stops
// scaling at 4 cores; power rising with every clock. Not a form of the predictor.
double truth_time_s(int c, double f, double g, double m) {
  return 0.3 + std::pow(std::pow(9 / g, 4) + std::pow(3 / m, 4), 0.25) + 1 / f * (0.3 + 0.7 / std::min(c, 4));
}
double truth_power_w(int c, double f, double g, double m) {
  return 4.5 + 0.1 * c + 0.9 * c * f * std::pow(0.6 + 0.25 * f, 2) + 11 * g * std::pow(0.6 + 0.4 * g, 2) + 1.6 * m;
}

class AnalyzePredictTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string runs = "workload,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz,epoch_time_s,avg_power_w\n";
    int i = 0;
    for (int c : {2, 4, 8, 12})
      for (double f : {729.6, 1344.0, 2201.6})
        for (double g : {306.0, 714.0, 1300.5})
          for (double m : {665.6, 3199.0}) {
            const bool kept = i % 8 == 1 || i % 8 == 6;  // 18 of the 72, both EMC clocks among them
            ++i;
            if (!kept) continue;
            const double wobble = 1 + 0.01 * std::sin(i);  // deterministic "noise"
            runs += fmt_row(c, f, g, m, truth_time_s(c, f / 1e3, g / 1e3, m / 1e3) * wobble,
                            truth_power_w(c, f / 1e3, g / 1e3, m / 1e3) / wobble);
          }
    runs_ = dir_.write("runs.csv", runs);
    modes_ = dir_.write("modes.csv",
                        "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n"
                        "a,6,1651.2,918,2133\nb,1,729.6,306,665.6\n");
  }
  static std::string fmt_row(int c, double f, double g, double m, double t, double p) {
    std::ostringstream row;
    row.precision(10);
    row << "resnet18," << c << "," << f << "," << g << "," << m << "," << t << "," << p << "\n";
    return row.str();
  }
  int run(const std::vector<std::string>& args) {
    return testing::run_jetchar(args, dir_.path() / "out.txt", dir_.path() / "err.txt");
  }
  std::string out() const { return read_text(dir_.path() / "out.txt"); }
  std::string err() const { return read_text(dir_.path() / "err.txt"); }

  testing::TempDir dir_;
  std::filesystem::path runs_, modes_;
};

TEST_F(AnalyzePredictTest, PredictJsonGivesEachModeAnIntervalFromTheAutoModel) {
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--json"}), 0) << err();
  auto doc = nlohmann::json::parse(out());
  EXPECT_EQ(doc.at("interval_level"), 0.9);
  ASSERT_EQ(doc.at("predictions").size(), 2u);
  // Mode b has 1 core, which no profiled mode has: an extrapolation, so its time interval is the
  // wider one (both must still hold the truth). The power intervals are close in width (0.057 and
  // 0.060 in log terms), so only the time intervals are compared.
  auto width = [](const nlohmann::json& v) { return std::log(v.at("high").get<double>() / v.at("low").get<double>()); };
  EXPECT_GT(width(doc.at("predictions").at(1).at("time_s")), width(doc.at("predictions").at(0).at("time_s")));
  for (const auto& p : doc.at("predictions")) {
    EXPECT_THAT(p.at("model").get<std::string>(), ::testing::StartsWith("auto:"));
    EXPECT_EQ(p.at("profiled"), 18);
    for (const char* what : {"time_s", "power_w", "energy_j"}) {
      const auto& v = p.at(what);
      EXPECT_LE(v.at("low").get<double>(), v.at("value").get<double>()) << what;
      EXPECT_GE(v.at("high").get<double>(), v.at("value").get<double>()) << what;
    }
    const int c = p.at("cpu_cores");
    const double f = p.at("cpu_freq_khz").get<double>() / 1e6, g = p.at("gpu_freq_khz").get<double>() / 1e6,
                 m = p.at("emc_freq_khz").get<double>() / 1e6;
    const double t = truth_time_s(c, f, g, m), w = truth_power_w(c, f, g, m);
    auto inside = [](const nlohmann::json& v, double x) {
      return v.at("low").get<double>() <= x && x <= v.at("high").get<double>();
    };
    EXPECT_TRUE(inside(p.at("time_s"), t)) << p.at("mode");
    EXPECT_TRUE(inside(p.at("power_w"), w)) << p.at("mode");
    // Mode b's one core is below every profiled mode's: named as extrapolated.
    EXPECT_EQ(p.at("extrapolates"),
              p.at("mode") == "b" ? nlohmann::json::array({"cpu_cores"}) : nlohmann::json::array());
    if (p.at("mode") == "a") {
      // Inside the profiled ranges (6 cores between the profiled 4 and 8): close to the truth.
      EXPECT_NEAR(p.at("time_s").at("value").get<double>() / t, 1, 0.05);
      EXPECT_NEAR(p.at("power_w").at("value").get<double>() / w, 1, 0.07);
    }
  }
}

TEST_F(AnalyzePredictTest, ModesOutsideTheProfiledRangeOfAKnobAreNamedOnStderr) {
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string()}), 0) << err();
  EXPECT_THAT(err(), ::testing::HasSubstr("extrapolated: resnet18: 1 of 2 modes lie outside the profiled cpu_cores "
                                          "range 2..12; cross-validation on the profiled modes does not check "
                                          "predictions there\n"));
  EXPECT_THAT(err(), ::testing::Not(::testing::HasSubstr("freq_khz range")));
  // The fixed models extrapolate as much.
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--model", "nnls"}), 0) << err();
  EXPECT_THAT(err(), ::testing::HasSubstr("extrapolated: resnet18: 1 of 2 modes lie outside the profiled cpu_cores"));
}

TEST_F(AnalyzePredictTest, PredictCsvCarriesTheBoundsAndFixedModelsLeaveThemEmpty) {
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string()}), 0) << err();
  EXPECT_THAT(out(), ::testing::HasSubstr("predicted_energy_j,time_low_s,time_high_s,power_low_w,power_high_w,"
                                          "energy_low_j,energy_high_j,fitted_on,measured_time_s,measured_power_w,"
                                          "measured_energy_j,measure\n"));
  EXPECT_THAT(out(), ::testing::ContainsRegex("resnet18,,a,6,1651200,918000,2133000,auto:[a-z_]+/[a-z]+,18,"));
  // Neither mode was measured: not fitted on, no measured values.
  EXPECT_THAT(out(), ::testing::ContainsRegex(",0,,,,epoch\n"));
  // Without --profile every measured mode is in the fit: stderr says no held-out error is given.
  EXPECT_THAT(err(), ::testing::HasSubstr("held out: resnet18: none: the fit used every measured mode"));
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--model", "nnls"}), 0) << err();
  EXPECT_THAT(out(), ::testing::ContainsRegex(",nnls,18,[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,,,,,,,0,,,,epoch\n"));
}

// Inference runs over the same modes: the models fit a query's latency (--latency) and the
// energy per query as they fit epoch times, and the rows say so.
// Inference runs' p99 latency runs 30 % above their mean latency, which their energy per query is
// spent over: predict gives the p99 as the time and J/query from the fit on the mean latency, so
// the measured modes it leaves out check both (power x p99 would miss J/query by 30 %).
TEST_F(AnalyzePredictTest, InferenceRunsPredictALatencyAndEnergyPerQuery) {
  std::string runs =
      "workload,task,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz,latency_avg_ms,latency_p99_ms,"
      "energy_per_query_j\n";
  std::string measured = "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n";
  int i = 0;
  for (int c : {2, 4, 8, 12})
    for (double f : {729.6, 1344.0, 2201.6})
      for (double g : {306.0, 714.0, 1300.5})
        for (double m : {665.6, 3199.0}) {
          if (++i % 4 != 1) continue;
          const double t = truth_time_s(c, f / 1e3, g / 1e3, m / 1e3) / 100;  // seconds per query
          const double p = truth_power_w(c, f / 1e3, g / 1e3, m / 1e3);
          std::ostringstream row;
          row.precision(10);
          row << "bert,INFER," << c << "," << f << "," << g << "," << m << "," << 1000 * t << "," << 1300 * t << ","
              << p * t << "\n";
          runs += row.str();
          measured += fmt::format("m{},{},{},{},{}\n", i, c, f, g, m);
        }
  const auto file = dir_.write("infer.csv", runs);
  ASSERT_EQ(run({"analyze", "predict", file.string(), "--modes", modes_.string()}), 0) << err();
  EXPECT_THAT(out(), ::testing::ContainsRegex("\nbert,,a,6,1651200,918000,2133000,auto:[a-z_]+/[a-z_]+; energy "
                                              "auto:[a-z_]+/[a-z_]+,18,[0-9.e-]+,.*,query_p99\n"));
  EXPECT_THAT(err(), ::testing::HasSubstr("measure query_p99: predicted p99 latency of a query (time columns, s), "
                                          "power and energy per query (energy columns, J/query), these two from a "
                                          "fit on the mean latency"));
  EXPECT_THAT(err(), ::testing::Not(::testing::HasSubstr("warm epoch")));  // no training group here

  const auto every_mode = dir_.write("measured.csv", measured);
  ASSERT_EQ(run({"analyze", "predict", file.string(), "--modes", every_mode.string(), "--profile", "9", "--json"}), 0)
      << err();
  const auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc.at("held_out").size(), 1u);
  const auto& held_out = doc.at("held_out").at(0);
  EXPECT_EQ(held_out.at("modes"), 9);
  EXPECT_LT(held_out.at("energy_mape_pct").get<double>(), 5) << held_out.dump();
  EXPECT_LT(held_out.at("time_mape_pct").get<double>(), 10) << held_out.dump();
  for (const auto& p : doc.at("predictions")) {
    EXPECT_EQ(p.at("measure"), "query_p99");
    // The p99 predicted is 1.3 times the mean latency J/query is spent over.
    const double p99_energy = p.at("time_s").at("value").get<double>() * p.at("power_w").at("value").get<double>();
    EXPECT_NEAR(p99_energy / p.at("energy_j").at("value").get<double>(), 1.3, 0.1) << p.dump();
  }
  EXPECT_THAT(err(), ::testing::HasSubstr("held out: bert: 9 measured modes the fit left out"));

  // fit scores the same models: power and energy per query from the fit on the mean latency, whose
  // left-out energy error is small where power x p99 would miss by 30 %.
  ASSERT_EQ(run({"analyze", "fit", file.string()}), 0) << err();
  EXPECT_THAT(out(), ::testing::HasSubstr("bert inference: 18 power modes"));
  EXPECT_THAT(out(), ::testing::HasSubstr("; power and energy fitted on the mean latency\n"));
  ASSERT_EQ(run({"analyze", "fit", file.string(), "--json"}), 0) << err();
  const auto fit = nlohmann::json::parse(out()).at("groups").at(0).at("auto");
  EXPECT_EQ(fit.at("power_fitted_on"), "mean latency");
  EXPECT_LT(fit.at("loo_energy_mape_pct").get<double>(), 5) << fit.dump();
}

TEST_F(AnalyzePredictTest, FitJsonNamesTheChosenFormsAndEveryScore) {
  ASSERT_EQ(run({"analyze", "fit", runs_.string(), "--json"}), 0) << err();
  auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc.at("groups").size(), 1u);
  const auto& g = doc.at("groups").at(0);
  EXPECT_EQ(g.at("power_modes"), 18);
  EXPECT_EQ(g.at("models").size(), 4u);  // linear, inverse, resource, nnls
  const auto& a = g.at("auto");
  EXPECT_EQ(a.at("time_forms").size(), 6u);   // sum, overlap, overlap_all, nested, saturating, power_law
  EXPECT_EQ(a.at("power_forms").size(), 5u);  // voltage, clocked, polynomial, activity, power_law
  EXPECT_LT(a.at("loo_time_mape_pct").get<double>(), 5);
  EXPECT_LT(a.at("loo_power_mape_pct").get<double>(), 5);
  EXPECT_EQ(a.at("power_fitted_on"), "the same measure");  // epoch times: no second fit
  bool chosen_listed = false;
  for (const auto& s : a.at("time_forms")) chosen_listed |= s.at("form") == a.at("time_form");
  EXPECT_TRUE(chosen_listed);
}

// The use: a whole 1,440-mode AGX-Orin-like grid measured (2 % noise), predict --profile 15
// fits on 15 of them and predicts every mode. The truth here is a launch-bound hard max with a
// 2-core launch limit, flat-then-rising V/f curves and power that ignores every busy share: none
// of the predictor's forms.
TEST_F(AnalyzePredictTest, FifteenProfiledModesPredictTheWholeGrid) {
  auto time_s = [](int c, double f, double g, double m) {
    return 0.2 + std::max(7.0 / f * (0.55 + 0.45 / std::min(c, 2)), 1.2 / g + 0.6 / m);
  };
  auto power_w = [](int c, double f, double g, double m) {
    const double vc = std::max(0.62, 0.62 + 0.3 * (f - 1.2)), vg = std::max(0.6, 0.6 + 0.4 * (g - 0.6)),
                 vm = std::max(0.8, 0.8 + 0.08 * (m - 1.6));
    return 4.5 + 0.12 * c * vc / 0.62 + 0.9 * std::min(c, 2) * f * vc * vc + 4.5 * g * vg * vg + 1.6 * m * vm * vm;
  };
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::ostringstream runs, modes;
  runs << "workload,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz,epoch_time_s,avg_power_w\n";
  modes << "mode,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz\n";
  runs.precision(8);
  std::vector<std::pair<double, double>> measured;  // the truth of each mode (no noise)
  for (int c : {1, 2, 4, 6, 8, 12})
    for (int f : {729600, 1036800, 1344000, 1651200, 1958400, 2201600})
      for (int g : {306000, 408000, 510000, 612000, 714000, 816000, 918000, 1020000, 1122000, 1300500})
        for (int m : {665600, 1600000, 2133000, 3199000}) {
          const double t = time_s(c, f / 1e6, g / 1e6, m / 1e6) * noise(rng),
                       p = power_w(c, f / 1e6, g / 1e6, m / 1e6) * noise(rng);
          runs << "lenet," << c << "," << f << "," << g << "," << m << "," << t << "," << p << "\n";
          modes << "custom," << c << "," << f << "," << g << "," << m << "\n";
          measured.emplace_back(time_s(c, f / 1e6, g / 1e6, m / 1e6), power_w(c, f / 1e6, g / 1e6, m / 1e6));
        }
  auto all_runs = dir_.write("grid.csv", runs.str());
  auto all_modes = dir_.write("grid_modes.csv", modes.str());
  ASSERT_EQ(run({"analyze", "predict", all_runs.string(), "--modes", all_modes.string(), "--profile", "15", "--json"}),
            0)
      << err();
  auto doc = nlohmann::json::parse(out());
  const auto& predictions = doc.at("predictions");
  ASSERT_EQ(predictions.size(), measured.size());
  double time_error = 0, power_error = 0, held_out_time = 0, held_out_power = 0;
  int fitted_on = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const auto& p = predictions[i];
    EXPECT_EQ(p.at("profiled"), 15);
    const double t = p.at("time_s").at("value").get<double>(), w = p.at("power_w").at("value").get<double>();
    time_error += std::abs(t / measured[i].first - 1);
    power_error += std::abs(w / measured[i].second - 1);
    // Every mode was measured: each prediction carries its measured values, and the modes the
    // fit left out give the held-out error.
    const double measured_t = p.at("measured").at("time_s"), measured_w = p.at("measured").at("power_w");
    EXPECT_NEAR(measured_t / measured[i].first, 1, 0.1) << p.at("mode");
    if (p.at("fitted_on").get<bool>()) {
      ++fitted_on;
    } else {
      held_out_time += std::abs(t / measured_t - 1), held_out_power += std::abs(w / measured_w - 1);
    }
  }
  EXPECT_EQ(fitted_on, 15);
  // Against the noiseless truth. This GPU draws at its clock whether busy or not, so the predictor
  // picks the clocked power form (1.5 % power MAPE here).
  EXPECT_LE(100 * time_error / measured.size(), 5.0);
  EXPECT_LE(100 * power_error / measured.size(), 3.0);
  // The held-out error against the measured (noisy) values, as printed on stderr and in the JSON.
  const double held_out = static_cast<double>(measured.size()) - 15;
  ASSERT_EQ(doc.at("held_out").size(), 1u);
  const auto& h = doc.at("held_out").at(0);
  EXPECT_EQ(h.at("workload"), "lenet");
  EXPECT_EQ(h.at("modes"), measured.size() - 15);
  EXPECT_NEAR(h.at("time_mape_pct").get<double>(), 100 * held_out_time / held_out, 1e-9);
  EXPECT_NEAR(h.at("power_mape_pct").get<double>(), 100 * held_out_power / held_out, 1e-9);
  EXPECT_LE(h.at("power_mape_pct").get<double>(), 3.0);
  EXPECT_THAT(err(), ::testing::ContainsRegex("held out: lenet: 1425 measured modes the fit left out: MAPE time "
                                              "[0-9.]+ %, power [0-9.]+ %, energy [0-9.]+ %\n"));
}

// --profile N picks for the auto model what an adaptive_profile sweep of N modes would profile: the
// same space-filling start whatever the measurements, then modes chosen from the measured values
// of those before. Two workloads measured on the same 108 modes (a GPU-bound one and a
// launch-bound one, 2 % noise) share their first 11 of 15 picks and part ways after them.
TEST_F(AnalyzePredictTest, ProfileFollowsEachWorkloadsMeasurementsAfterTheSpaceFillingStart) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::ostringstream runs, modes;
  runs << "workload,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz,epoch_time_s,avg_power_w\n";
  modes << "mode,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz\n";
  runs.precision(8);
  for (int c : {2, 4, 8})
    for (int f : {729600, 1344000, 2201600})
      for (int g : {306000, 612000, 918000, 1300500})
        for (int m : {665600, 2133000, 3199000}) {
          const double cf = f / 1e6, gf = g / 1e6, mf = m / 1e6;
          runs << "gpu_bound," << c << "," << f << "," << g << "," << m << ","
               << (0.3 + 9 / gf + 1 / (cf * c)) * noise(rng) << ","
               << (5 + 0.5 * c * cf + 9 * gf * gf + mf) * noise(rng) << "\n";
          runs << "launch_bound," << c << "," << f << "," << g << "," << m << ","
               << (0.2 + 7 / cf * (0.5 + 0.5 / std::min(c, 2)) + 0.5 / gf) * noise(rng) << ","
               << (4 + 1.5 * std::min(c, 2) * cf * cf + 2 * gf + 0.5 * mf) * noise(rng) << "\n";
          modes << "custom," << c << "," << f << "," << g << "," << m << "\n";
        }
  auto all_runs = dir_.write("two.csv", runs.str());
  auto all_modes = dir_.write("two_modes.csv", modes.str());
  ASSERT_EQ(run({"analyze", "predict", all_runs.string(), "--modes", all_modes.string(), "--profile", "15", "--json"}),
            0)
      << err();
  std::map<std::string, std::set<std::string>> fitted;  // per workload, the modes fitted on
  const auto doc = nlohmann::json::parse(out());
  for (const auto& p : doc.at("predictions")) {
    if (!p.at("fitted_on").get<bool>()) continue;
    fitted[p.at("workload").get<std::string>()].insert(
        fmt::format("{}/{}/{}/{}", p.at("cpu_cores").get<int>(), p.at("cpu_freq_khz").get<long>(),
                    p.at("gpu_freq_khz").get<long>(), p.at("emc_freq_khz").get<long>()));
  }
  ASSERT_EQ(fitted.size(), 2u);
  ASSERT_EQ(fitted["gpu_bound"].size(), 15u);
  ASSERT_EQ(fitted["launch_bound"].size(), 15u);
  std::vector<std::string> shared;
  std::set_intersection(fitted["gpu_bound"].begin(), fitted["gpu_bound"].end(), fitted["launch_bound"].begin(),
                        fitted["launch_bound"].end(), std::back_inserter(shared));
  EXPECT_GE(shared.size(), 11u);
  EXPECT_LT(shared.size(), 15u);
}

// fit --profile N fits each model on N modes and on random choices of N and scores them on the
// other modes. The auto model's N modes are the adaptive pick that predict --profile N fits on, so
// its design score is predict's held-out error; only auto predicts power on its own.
TEST_F(AnalyzePredictTest, FitProfileScoresAutoOnTheModesPredictProfilesAndRandomChoices) {
  ASSERT_EQ(run({"analyze", "fit", runs_.string(), "--profile", "10", "--json"}), 0) << err();
  const auto profile = nlohmann::json::parse(out()).at("groups").at(0).at("profile");
  EXPECT_EQ(profile.at("profiled"), 10);
  EXPECT_EQ(profile.at("evaluated"), 8);
  ASSERT_EQ(profile.at("models").size(), 5u);  // linear, inverse, resource, nnls, auto
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& m = profile.at("models").at(i);
    EXPECT_EQ(m.at("random_choices"), 20) << m.at("model");
    EXPECT_TRUE(m.at("design").at("time_mape_pct").is_number()) << m.at("model");
    EXPECT_TRUE(m.at("random").at("power_mape_pct").is_null()) << m.at("model");
  }
  const auto& a = profile.at("models").at(4);
  EXPECT_EQ(a.at("model"), "auto");
  EXPECT_EQ(a.at("random_choices"), 5);
  for (const char* what : {"time_mape_pct", "power_mape_pct", "energy_mape_pct"}) {
    EXPECT_GT(a.at("random").at(what).get<double>(), 0) << what;
  }

  std::ostringstream every_mode;
  every_mode << "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n";
  std::istringstream rows(read_text(runs_));
  std::string row;
  std::getline(rows, row);  // the header
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::istringstream fields(row);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    every_mode << "m," << cells[1] << "," << cells[2] << "," << cells[3] << "," << cells[4] << "\n";
  }
  const auto modes = dir_.write("measured_modes.csv", every_mode.str());
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes.string(), "--profile", "10", "--json"}), 0)
      << err();
  const auto held_out = nlohmann::json::parse(out()).at("held_out").at(0);
  EXPECT_EQ(held_out.at("modes"), 8);
  for (const char* what : {"time_mape_pct", "power_mape_pct", "energy_mape_pct"}) {
    EXPECT_NEAR(a.at("design").at(what).get<double>(), held_out.at(what).get<double>(), 1e-9) << what;
  }

  ASSERT_EQ(run({"analyze", "fit", runs_.string(), "--model", "auto", "--profile", "10"}), 0) << err();
  EXPECT_THAT(out(), ::testing::ContainsRegex("\n  auto +time % design +[0-9.]+ random +[0-9.]+   energy % design "
                                              "+[0-9.]+ random +[0-9.]+   power % design +[0-9.]+ random +[0-9.]+\n"));
  ASSERT_EQ(run({"analyze", "fit", runs_.string(), "--model", "auto", "--profile", "2"}), 0) << err();
  EXPECT_THAT(out(), ::testing::HasSubstr("\n  auto      needs between 3 and 17 profiled modes\n"));
}

// --suggest names modes of --modes to profile next, per workload; the fixed models have no
// left-out fits to ask.
TEST_F(AnalyzePredictTest, SuggestNamesModesToProfileNext) {
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--suggest", "1", "--json"}), 0)
      << err();
  const auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc.at("profile_next").size(), 1u);
  const auto& next = doc.at("profile_next").at(0);
  EXPECT_EQ(next.at("workload"), "resnet18");
  ASSERT_EQ(next.at("modes").size(), 1u);
  // b's one core lies beyond every profiled mode: measuring it narrows the predictions most.
  EXPECT_EQ(next.at("modes").at(0).at("mode"), "b");
  EXPECT_EQ(next.at("modes").at(0).at("cpu_cores"), 1);
  EXPECT_THAT(err(), ::testing::HasSubstr(
                         "profile next: resnet18: b (where a measurement would most narrow the predictions)\n"));

  EXPECT_EQ(
      run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--suggest", "1", "--model", "nnls"}),
      kUsage);
  EXPECT_THAT(err(), ::testing::HasSubstr("--suggest asks the auto model's left-out fits"));
}

TEST_F(AnalyzePredictTest, ABadIntervalLevelIsBadInput) {
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--level", "1.5"}), kBadInput);
  EXPECT_THAT(err(), ::testing::HasSubstr("interval level"));
}

}  // namespace
}  // namespace jetchar::cli
