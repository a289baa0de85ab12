// `adaptive_profile { ... }` sweeps through the real jetchar on a simulated AGX Orin: the board
// paces each minibatch to its time model, so epoch times follow the clocks, and the adaptive loop
// reaches its error target from a few of the 81 modes, stores a prediction for every mode and
// prints the profiling time against the study's; specs the predictor cannot use are refused
// before anything runs, naming the run and the setting. With the whole grid measured once, 15
// profiled modes predict the other 66 within the goal.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// 3 core counts x 3 CPU x 3 GPU x 3 EMC clocks of the AGX Orin fixture: 81 modes.
constexpr const char* kGridAxes =
    "axes { field: \"device.cpu_cores\" values: [\"4\", \"8\", \"12\"] }\n"
    "axes { field: \"device.cpu_freq_mhz\" values: [\"729.6\", \"1344\", \"2201.6\"] }\n"
    "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"714\", \"1300.5\"] }\n"
    "axes { field: \"device.emc_freq_mhz\" values: [\"665.6\", \"2133\", \"3199\"] }\n";

// Two epochs: the second, warm one gives each run's time (the first pays the process's one-off
// costs). Batches of 1: LeNet-5's modelled minibatch is launch-bound (about 3.2 ms in the fastest
// mode, whatever the batch), and a batch of 1 keeps the host's own step inside it, so few runs are
// slowed down (a minibatch the host overruns reports the board's time all the same). 30
// minibatches an epoch unless given: the paced times are the model's, nearly noiseless.
std::string spec(const std::string& adaptive, const std::string& axes, int minibatches = 30) {
  return "name: \"ap\"\nboard: \"sim:agx-orin-r36\"\nadaptive_profile { " + adaptive +
         " }\nbase {\n"
         "  workload { model: \"lenet5\" dataset: \"synthetic:1x28x28?samples=2048&classes=10\" batch_size: 1 "
         "epochs: 2 max_minibatches: " +
         std::to_string(minibatches) +
         " device: \"cpu\" }\n"
         "  loader { workers: 1 }\n"
         "  device { dvfs: OFF }\n"
         "  measurement { sample_rate_hz: 200 }\n}\n" +
         axes;
}

class AdaptiveProfileSweepTest : public ::testing::Test {
 protected:
  int sweep(const std::string& text) {
    std::ofstream(dir_.path() / "sweep.textproto") << text;
    return testing::run_jetchar(
        {"sweep", "run", (dir_.path() / "sweep.textproto").string(), "--results", (dir_.path() / "results").string()},
        dir_.path() / "out.txt", dir_.path() / "err.txt");
  }
  std::string out() const { return read(dir_.path() / "out.txt"); }
  std::string err() const { return read(dir_.path() / "err.txt"); }

  testing::TempDir dir_;
};

TEST_F(AdaptiveProfileSweepTest, ReachesItsTargetFromAFewModesAndPredictsEveryMode) {
  ASSERT_EQ(sweep(spec("target_mape_pct: 10 max_modes: 15 initial_modes: 6", kGridAxes)), kOk) << out() << err();
  const std::string text = out();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      text, m, std::regex(R"(adaptive profiling: (\d+) of 81 power modes profiled \(81 candidates\); stopped: (.*))")))
      << text;
  const int profiled = std::stoi(m[1]);
  EXPECT_EQ(m[2], "target reached") << text;
  EXPECT_GE(profiled, 6);
  EXPECT_LT(profiled, 15);
  EXPECT_NE(text.find("predictions for all 81 modes stored in"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex(
          R"(profiling time: .* paced to the simulated board's time model: MODELLED\); the study profiled about 2 h per workload)")))
      << text;
  // Only the profiled modes ran: one stored run each.
  EXPECT_NE(text.find(std::to_string(profiled) + " of " + std::to_string(profiled) + " runs stored"), std::string::npos)
      << text;
  // Epoch times follow the clocks: the profiled modes' E2E times (the run table) spread widely,
  // where the host alone would give nearly the same time in every mode.
  std::vector<double> e2e;
  const std::regex row(R"(^\d{4}-r0 +OK +.*? +1 +1 +([0-9.]+)\*? )");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, m, row)) e2e.push_back(std::stod(m[1]));
  }
  ASSERT_EQ(static_cast<int>(e2e.size()), profiled) << text;
  const auto [lo, hi] = std::minmax_element(e2e.begin(), e2e.end());
  EXPECT_GT(*hi / *lo, 1.5) << text;
  // The fit follows each profiled mode's measured time.
  const std::regex profiled_row(R"(^(\S+) +profiled +([0-9.]+) \[([0-9.]+), ([0-9.]+)\] .* ([0-9.]+) s$)");
  int rows = 0;
  lines = std::istringstream(text);
  for (std::string line; std::getline(lines, line);) {
    if (!std::regex_search(line, m, profiled_row)) continue;
    ++rows;
    const double predicted = std::stod(m[2]);
    const double measured = std::stod(m[5]);
    EXPECT_NEAR(predicted / measured, 1.0, 0.25) << line;
  }
  EXPECT_EQ(rows, profiled) << text;
}

// The goal on the simulated board, end to end: the whole 81-mode grid measured once, then 15 modes
// chosen two ways predict the other 66 within 5 % time and 3 % power MAPE against their measured
// values. `analyze predict --profile 15` picks from the full sweep's measurements the 15 modes an
// adaptive_profile sweep would profile and reports the held-out error itself; an adaptive_profile
// sweep with a budget of 15 (and a target it cannot reach) runs its own 15 and stores predictions
// for every mode, compared here with the full sweep's measurements. (Measured on the example's
// grid: 0.33 % time and 0.25 % power from --profile 15, 0.6 % and 0.2 % from the sweep; the board's
// time and power models are smooth in the clocks, and its readings nearly noiseless.)
// Both sweeps run 5 minibatches an epoch (96 runs: 30 took 55 s, 10 took 39 s): still paced to the model.
TEST_F(AdaptiveProfileSweepTest, FifteenModesPredictTheOtherSixtySixWithinTheGoal) {
  constexpr int kMinibatches = 5;
  std::string full = spec("max_modes: 1", kGridAxes, kMinibatches);
  full.erase(full.find("adaptive_profile"), full.find("}\n") + 2 - full.find("adaptive_profile"));
  std::ofstream(dir_.path() / "full.textproto") << full;
  const fs::path full_results = dir_.path() / "full";
  ASSERT_EQ(testing::run_jetchar(
                {"sweep", "run", (dir_.path() / "full.textproto").string(), "--results", full_results.string()},
                dir_.path() / "out.txt", dir_.path() / "err.txt"),
            kOk)
      << out() << err();
  ASSERT_NE(out().find("81 of 81 runs stored"), std::string::npos) << out();

  std::ofstream modes(dir_.path() / "modes.csv");
  modes << "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n";
  for (const char* c : {"4", "8", "12"})
    for (const char* f : {"729.6", "1344", "2201.6"})
      for (const char* g : {"306", "714", "1300.5"})
        for (const char* m : {"665.6", "2133", "3199"})
          modes << "custom," << c << "," << f << "," << g << "," << m << "\n";
  modes.close();
  ASSERT_EQ(testing::run_jetchar({"analyze", "predict", full_results.string(), "--modes",
                                  (dir_.path() / "modes.csv").string(), "--profile", "15", "--json"},
                                 dir_.path() / "out.txt", dir_.path() / "err.txt"),
            kOk)
      << err();
  const auto predicted = nlohmann::json::parse(out());
  ASSERT_EQ(predicted.at("held_out").size(), 1u) << out();
  const auto& held_out = predicted.at("held_out").at(0);
  EXPECT_EQ(held_out.at("modes"), 66);
  EXPECT_LE(held_out.at("time_mape_pct").get<double>(), 5.0);
  EXPECT_LE(held_out.at("power_mape_pct").get<double>(), 3.0);

  // Each mode's measured time and power, by its knobs.
  std::map<std::string, std::pair<double, double>> measured;
  auto knobs = [](const nlohmann::json& m) {
    return fmt::format("{}/{}/{}/{}", m.at("cpu_cores").get<int>(), m.at("cpu_freq_khz").get<long>(),
                       m.at("gpu_freq_khz").get<long>(), m.at("emc_freq_khz").get<long>());
  };
  for (const auto& p : predicted.at("predictions")) {
    measured[knobs(p)] = {p.at("measured").at("time_s"), p.at("measured").at("power_w")};
  }
  ASSERT_EQ(measured.size(), 81u);

  ASSERT_EQ(sweep(spec("target_mape_pct: 0.01 max_modes: 15 initial_modes: 6", kGridAxes, kMinibatches)), kOk)
      << out() << err();
  ASSERT_NE(out().find("15 of 81 power modes profiled (81 candidates); stopped: budget spent"), std::string::npos)
      << out();
  ASSERT_EQ(testing::run_jetchar({"analyze", "predictions", (dir_.path() / "results").string(), "--json"},
                                 dir_.path() / "out.txt", dir_.path() / "err.txt"),
            kOk)
      << err();
  double time_error = 0, power_error = 0;
  int compared = 0;
  const auto stored = nlohmann::json::parse(out());
  for (const auto& m : stored.at("sweeps").at(0).at("modes")) {
    if (m.at("profiled").get<bool>()) continue;
    const auto [time_s, power_w] = measured.at(knobs(m));
    time_error += std::abs(m.at("time_s").at("value").get<double>() / time_s - 1);
    power_error += std::abs(m.at("power_w").at("value").get<double>() / power_w - 1);
    ++compared;
  }
  ASSERT_EQ(compared, 66);
  EXPECT_LE(100 * time_error / compared, 5.0);
  EXPECT_LE(100 * power_error / compared, 3.0);
}

// What the sweep stored is what `analyze predictions` and the report read back: every mode with
// its intervals, the profiled ones with their measured values, and the predicted Pareto front.
TEST_F(AdaptiveProfileSweepTest, AnalyzeAndTheReportReadTheStoredPredictions) {
  const std::string axes =
      "axes { field: \"device.cpu_cores\" values: [\"4\", \"12\"] }\n"
      "axes { field: \"device.cpu_freq_mhz\" values: [\"729.6\", \"2201.6\"] }\n"
      "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"1300.5\"] }\n"
      "axes { field: \"device.emc_freq_mhz\" values: [\"665.6\", \"3199\"] }\n";
  ASSERT_EQ(sweep(spec("max_modes: 5 initial_modes: 4", axes)), kOk) << out() << err();
  ASSERT_NE(out().find("predictions for all 16 modes stored in"), std::string::npos) << out();
  const std::string results = (dir_.path() / "results").string();

  ASSERT_EQ(testing::run_jetchar({"analyze", "predictions", results, "--json"}, dir_.path() / "out.txt",
                                 dir_.path() / "err.txt"),
            kOk)
      << err();
  const auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc.at("sweeps").size(), 1u);
  const auto& s = doc.at("sweeps").at(0);
  EXPECT_EQ(s.at("sweep"), "ap");
  EXPECT_EQ(s.at("interval_level"), 0.9);
  EXPECT_EQ(s.at("modelled"), true);
  ASSERT_EQ(s.at("modes").size(), 16u);
  int profiled = 0;
  for (const auto& m : s.at("modes")) {
    for (const char* what : {"time_s", "power_w", "energy_j"}) {
      const auto& v = m.at(what);
      ASSERT_FALSE(v.is_null()) << what;
      EXPECT_LE(v.at("low").get<double>(), v.at("value").get<double>()) << what;
      EXPECT_GE(v.at("high").get<double>(), v.at("value").get<double>()) << what;
    }
    if (m.at("profiled").get<bool>()) {
      ++profiled;
      EXPECT_GT(m.at("measured_time_s").get<double>(), 0);
      EXPECT_GT(m.at("measured_power_w").get<double>(), 0);
    } else {
      EXPECT_TRUE(m.at("measured_time_s").is_null());
    }
  }
  EXPECT_EQ(profiled, 5);
  ASSERT_FALSE(s.at("front").empty());
  for (const auto& f : s.at("front")) {
    if (!f.at("measured").get<bool>()) {
      EXPECT_LT(f.at("energy_low_j").get<double>(), f.at("energy_high_j").get<double>());
    }
  }

  ASSERT_EQ(testing::run_jetchar({"analyze", "predictions", results}, dir_.path() / "out.txt", dir_.path() / "err.txt"),
            kOk)
      << err();
  EXPECT_TRUE(
      std::regex_search(out(), std::regex(R"(sweep ap: 16 power modes, 5 profiled, 11 predicted; 90 % intervals)")))
      << out();
  EXPECT_TRUE(std::regex_search(
      out(),
      std::regex(
          R"(sweep ap: predicted time-energy Pareto front over 16 modes: \d+ on it \(\d+ measured, \d+ predicted\))")))
      << out();

  const auto page = dir_.path() / "report.html";
  ASSERT_EQ(
      testing::run_jetchar({"report", results, "-o", page.string()}, dir_.path() / "out.txt", dir_.path() / "err.txt"),
      kOk)
      << err();
  const std::string html = read(page);
  EXPECT_NE(html.find("<section id=\"mode-predictions\">"), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"predicted-front:0\""), std::string::npos);
  EXPECT_NE(html.find("16 power modes, 5 profiled"), std::string::npos);
}

TEST_F(AdaptiveProfileSweepTest, AnalyzePredictionsNamesWhatItNeeds) {
  const auto csv = dir_.path() / "runs.csv";
  std::ofstream(csv) << "workload,epoch_time_s\nlenet,1\n";
  EXPECT_EQ(
      testing::run_jetchar({"analyze", "predictions", csv.string()}, dir_.path() / "out.txt", dir_.path() / "err.txt"),
      kBadInput);
  EXPECT_NE(err().find("predictions are stored in a results store (table mode_predictions of results.db)"),
            std::string::npos)
      << err();
}

TEST_F(AdaptiveProfileSweepTest, AnAxisOtherThanThePowerModeIsRefusedBeforeAnythingRuns) {
  EXPECT_EQ(sweep(spec("target_mape_pct: 5",
                       std::string(kGridAxes) + "axes { field: \"workload.batch_size\" values: [\"8\", \"16\"] }\n")),
            kBadInput);
  EXPECT_TRUE(std::regex_search(
      err(),
      std::regex(
          R"(adaptive_profile: run \d{4}-r0 sweeps workload\.batch_size=(8|16); only power-mode axes \(device\.\*\))")))
      << err();
  EXPECT_FALSE(fs::exists(dir_.path() / "results" / "results.db"));
}

TEST_F(AdaptiveProfileSweepTest, AModeWithoutAllFourKnobsIsRefused) {
  const std::string axes =
      "axes { field: \"device.gpu_freq_mhz\" values: [\"306\", \"714\", \"1300.5\"] }\n"
      "axes { field: \"device.cpu_cores\" values: [\"4\", \"8\", \"12\"] }\n";
  EXPECT_EQ(sweep(spec("max_modes: 6 initial_modes: 3", axes)), kBadInput);
  EXPECT_NE(
      err().find("has no device.cpu_freq_mhz, device.emc_freq_mhz: the predictor needs every mode's cores and CPU, "
                 "GPU and EMC clocks"),
      std::string::npos)
      << err();
}

TEST_F(AdaptiveProfileSweepTest, OptionsOutOfRangeAreRefusedByName) {
  EXPECT_EQ(sweep(spec("max_modes: 4 initial_modes: 6", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("adaptive_profile: max_modes 4 must be at least initial_modes 6"), std::string::npos) << err();
  EXPECT_EQ(sweep(spec("target_mape_pct: -1", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("target_mape_pct -1 must be a positive percentage"), std::string::npos) << err();
  EXPECT_EQ(sweep(spec("level: 1.5", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("level 1.5 must be in (0, 1)"), std::string::npos) << err();
  EXPECT_EQ(sweep(spec("objective { confidence: 0.9 }", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("adaptive_profile: objective needs a budget: max_time_s, max_power_w or max_energy_j"),
            std::string::npos)
      << err();
  EXPECT_EQ(sweep(spec("objective { max_power_w: -3 }", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("objective: budget -3 must be a positive number"), std::string::npos) << err();
  EXPECT_EQ(sweep(spec("objective { max_time_s: 1 confidence: 0.3 }", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("objective: confidence 0.3 must be in (0.5, 1)"), std::string::npos) << err();
  EXPECT_EQ(sweep(spec("objective { max_time_s: 1 target_probability: 0 }", kGridAxes)), kBadInput);
  EXPECT_NE(err().find("objective: target_probability 0 must be in (0, 1]"), std::string::npos) << err();
}

// An objective aims the last picks at one choice and the sweep names that choice: here a budget
// every mode meets, so the choice is the mode of least energy, and a target probability of 0.5
// the loop may reach before its budget. The choice is stored with the predictions: `analyze
// predictions` prints the same line (and --json the same figures), the report the same sentence.
TEST_F(AdaptiveProfileSweepTest, AnObjectiveNamesTheChoiceItAimedAt) {
  ASSERT_EQ(
      sweep(spec("max_modes: 10 initial_modes: 6 objective { max_time_s: 100 target_probability: 0.5 }", kGridAxes)),
      kOk)
      << out() << err();
  const std::string text = out();
  EXPECT_TRUE(std::regex_search(
      text, std::regex(R"(adaptive profiling: \d+ of 81 power modes profiled \(81 candidates\); stopped: )"
                       R"((choice settled|budget spent))")))
      << text;
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex(R"(choice: least energy with epoch time <= 100 s at 90 % confidence: \S+ \((measured|predicted)\), )"
                 R"(epoch [0-9.]+ s, [0-9.e+]+ J; 81 of 81 modes eligible; expected regret [0-9.]+ %, )"
                 R"(P\(within 1 % of the best eligible\) [0-9.]+)")))
      << text;
  std::smatch found;
  ASSERT_TRUE(std::regex_search(text, found, std::regex(R"(choice: [^\n]+)")));
  const std::string line = found.str();
  const std::string results = (dir_.path() / "results").string();
  ASSERT_EQ(testing::run_jetchar({"analyze", "predictions", results}, dir_.path() / "out.txt", dir_.path() / "err.txt"),
            kOk)
      << err();
  EXPECT_NE(out().find("  " + line + "\n"), std::string::npos) << out();
  ASSERT_EQ(testing::run_jetchar({"analyze", "predictions", results, "--json"}, dir_.path() / "out.txt",
                                 dir_.path() / "err.txt"),
            kOk)
      << err();
  const auto choice = nlohmann::json::parse(out()).at("sweeps").at(0).at("choice");
  std::smatch named;
  ASSERT_TRUE(std::regex_search(line, named, std::regex(R"(confidence: (\S+) \()")));
  EXPECT_EQ(choice.at("mode"), named[1].str()) << choice.dump();
  EXPECT_EQ(choice.at("budget"), "least energy with epoch time <= 100 s");
  EXPECT_EQ(choice.at("eligible"), 81);
  const fs::path report = dir_.path() / "report.html";
  ASSERT_EQ(testing::run_jetchar({"report", results, "-o", report.string()}, dir_.path() / "out.txt",
                                 dir_.path() / "err.txt"),
            kOk)
      << err();
  EXPECT_NE(read(report).find("Objective least energy with epoch time &lt;= 100 s at 90 % confidence: pick <strong>" +
                              named[1].str() + "</strong>"),
            std::string::npos);
}

}  // namespace
}  // namespace jetchar::cli
