// `jetchar analyze choose RESULTS --modes FILE` through the real jetchar: the mode chosen over every
// mode of a modes file from 12 profiled ones, eligible only where its one-sided bound at the
// confidence meets the budget (checked against `analyze predict` at the matching level), printed
// with its intervals and the expected regret; bad requests are usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;

class AnalyzeChooseTest : public ::testing::Test {
 protected:
  // 360 modes, every one measured (2 % noise) and listed in the modes file. The time overlaps GPU
  // and DRAM work beside a launch thread; the power rises with each clock.
  void SetUp() override {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> noise(1.0, 0.02);
    std::ostringstream runs, modes;
    runs << "workload,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz,epoch_time_s,avg_power_w\n";
    modes << "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n";
    runs.precision(9);
    int i = 0;
    for (int c : {1, 2, 4, 8})
      for (double f : {729.6, 1036.8, 1344.0, 1651.2, 1958.4, 2201.6})
        for (double g : {306.0, 510.0, 714.0, 1020.0, 1300.5})
          for (double m : {665.6, 2133.0, 3199.0}) {
            const double t = 0.2 + std::max(1.5e3 / f * (0.5 + 0.5 / std::min(c, 2)), 2.4e3 / g + 0.9e3 / m);
            const double p = 4 + 0.2 * c + 2.5e-6 * c * f * f + 6e-3 * g + 7e-6 * g * g + 1.5e-3 * m;
            runs << "bert," << c << "," << f << "," << g << "," << m << "," << t * noise(rng) << "," << p * noise(rng)
                 << "\n";
            modes << "m" << i++ << "," << c << "," << f << "," << g << "," << m << "\n";
          }
    runs_ = dir_.write("runs.csv", runs.str()).string();
    modes_ = dir_.write("modes.csv", modes.str()).string();
  }
  int run(const std::vector<std::string>& args) {
    return testing::run_jetchar(args, dir_.path() / "out.txt", dir_.path() / "err.txt");
  }
  std::string out() const { return read_text(dir_.path() / "out.txt"); }
  std::string err() const { return read_text(dir_.path() / "err.txt"); }

  testing::TempDir dir_;
  std::string runs_, modes_;
};

TEST_F(AnalyzeChooseTest, ThePredictedChoiceIsTheLeastEnergyWhoseOneSidedBoundMeetsTheBudget) {
  const std::string budget = "4.0";  // just above a level of 24 modes at 3.98 s
  ASSERT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--profile", "12", "--max-time", budget, "--json"}), 0)
      << err();
  const auto doc = nlohmann::json::parse(out());
  EXPECT_EQ(doc.at("confidence"), 0.9);
  ASSERT_EQ(doc.at("choices").size(), 1u);
  const auto& choice = doc.at("choices").at(0);
  EXPECT_EQ(choice.at("workload"), "bert");
  EXPECT_EQ(choice.at("profiled"), 12);
  // The same fit at level 0.8: its upper bounds are the one-sided 90 % bounds the choice judged by.
  ASSERT_EQ(run({"analyze", "predict", runs_, "--modes", modes_, "--profile", "12", "--level", "0.8", "--json"}), 0)
      << err();
  const auto predictions = nlohmann::json::parse(out()).at("predictions");
  std::size_t eligible = 0;
  double least = INFINITY;
  std::string least_mode;
  for (const auto& p : predictions) {
    const bool measured = p.at("fitted_on").get<bool>();
    const double bound =
        measured ? p.at("measured").at("time_s").get<double>() : p.at("time_s").at("high").get<double>();
    const double energy =
        measured ? p.at("measured").at("energy_j").get<double>() : p.at("energy_j").at("value").get<double>();
    if (bound > std::stod(budget)) continue;
    ++eligible;
    if (energy < least) least = energy, least_mode = p.at("mode");
  }
  EXPECT_EQ(choice.at("eligible"), eligible);
  EXPECT_EQ(choice.at("mode"), least_mode);
  EXPECT_GE(choice.at("expected_regret_pct").get<double>(), 0);
  EXPECT_GT(choice.at("within_one_pct_probability").get<double>(), 0);
  // Fewer modes are eligible at more confidence, more at less (the bounds are order statistics of
  // 12 left-out fits, so a nearby confidence may share one).
  auto eligible_at = [&](const char* confidence) {
    EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--profile", "12", "--max-time", budget, "--json",
                   "--confidence", confidence}),
              0)
        << err();
    return nlohmann::json::parse(out()).at("choices").at(0).at("eligible").get<std::size_t>();
  };
  EXPECT_LT(eligible_at("0.97"), eligible);
  EXPECT_GT(eligible_at("0.6"), eligible);
}

TEST_F(AnalyzeChooseTest, TheTextNamesTheModeItsIntervalsAndHowSureTheChoiceIs) {
  ASSERT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--profile", "12", "--max-power", "12"}), 0) << err();
  EXPECT_THAT(out(), ::testing::StartsWith("least time with average power <= 12 W, over the 360 modes of "));
  EXPECT_THAT(out(), ::testing::ContainsRegex(
                         "\nbert: m[0-9]+ \\((measured|predicted)\\)  time [0-9.]+ s.*  power [0-9.]+ W.*  energy "
                         "[0-9.]+ J.*  [0-9]+ of 360 modes eligible  expected regret [0-9.]+ %  P\\(within 1 % of the "
                         "best eligible\\) [0-9.]+\n"));
}

// --objective choice profiles what an adaptive profile aimed at this choice would
// (AdaptiveProfile.AimedAtAChoiceMeasuresWhereItCouldImproveAndStopsOnceSettled checks its picks):
// the same 12 modes' budget, another last quarter, so another fit and another account of the choice.
TEST_F(AnalyzeChooseTest, TheObjectiveSelectsWhatTheProfileAimsAt) {
  auto choice_with = [&](const char* objective) {
    EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--profile", "12", "--max-time", "4.0", "--json",
                   "--objective", objective}),
              0)
        << err();
    return nlohmann::json::parse(out()).at("choices").at(0);
  };
  const auto aimed = choice_with("choice"), spread = choice_with("predictions");
  EXPECT_EQ(aimed.at("profiled"), 12);
  EXPECT_EQ(spread.at("profiled"), 12);
  EXPECT_NE(aimed, spread);
}

TEST_F(AnalyzeChooseTest, ABudgetNoModeMeetsFailsNamingIt) {
  EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--profile", "12", "--max-time", "0.01"}), kFailure);
  EXPECT_THAT(out(), ::testing::HasSubstr("bert: no mode meets the budget at 90 % confidence (12 profiled"));
  EXPECT_THAT(err(), ::testing::HasSubstr("1 of 1 configuration(s) have no mode that meets the budget"));
}

TEST_F(AnalyzeChooseTest, OptionsThatDoNotFitAreUsageErrors) {
  EXPECT_EQ(run({"analyze", "choose", runs_, "--max-time", "3", "--confidence", "0.8"}), kUsage);
  EXPECT_THAT(err(), ::testing::HasSubstr("--confidence requires --modes"));
  EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--zeus-eta", "0.5"}), kUsage);
  EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--max-time", "3", "--confidence", "1.5"}), kBadInput);
  EXPECT_THAT(err(), ::testing::HasSubstr("confidence"));
  EXPECT_EQ(run({"analyze", "choose", runs_, "--modes", modes_, "--max-time", "3", "--objective", "choice"}), kUsage);
  EXPECT_THAT(err(), ::testing::HasSubstr("--objective requires --profile"));
  EXPECT_EQ(run({"analyze", "choose", runs_, "--max-time", "3", "--json"}), kUsage);
  EXPECT_THAT(err(), ::testing::HasSubstr("--json requires --modes"));
}

// `analyze choose --max-latency` over inference runs: the least energy per query whose latency
// meets the bound (and the throughput floor), latencies with their unit; a time budget is not held
// against a latency, and a latency that is not one is a usage error naming it.
TEST(AnalyzeChooseLatencyTest, TheLeastEnergyPerQueryUnderALatencyBound) {
  testing::TempDir dir;
  const auto runs = dir.write("infer.csv",
                              "workload,mode,task,batch,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,"
                              "energy_per_query_j\n"
                              "bert,MAXN,INFER,1,2,3,500,0.02\n"
                              "bert,MAXN,INFER,8,10,14,800,0.1\n"
                              "bert,15W,INFER,1,4,6,250,0.015\n"
                              "bert,15W,INFER,8,30,45,266,0.09\n")
                        .string();
  const auto out = dir.path() / "out.txt", err = dir.path() / "err.txt";
  ASSERT_EQ(testing::run_jetchar({"analyze", "choose", runs, "--max-latency", "10ms"}, out, err), kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out),
              ::testing::HasSubstr("bert inference: 15W batch=1  p99 latency 6 ms  energy 0.015 J/query"));
  ASSERT_EQ(
      testing::run_jetchar({"analyze", "choose", runs, "--max-latency", "0.02s", "--min-throughput", "600"}, out, err),
      kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out), ::testing::HasSubstr("bert inference: MAXN batch=8  p99 latency 14 ms"));
  ASSERT_EQ(testing::run_jetchar({"analyze", "choose", runs, "--max-latency", "10ms", "--latency", "avg"}, out, err),
            kOk);
  EXPECT_THAT(read_text(out), ::testing::HasSubstr("15W batch=1  avg latency 4 ms"));

  EXPECT_EQ(testing::run_jetchar({"analyze", "choose", runs, "--max-time", "1"}, out, err), kBadInput);
  EXPECT_THAT(read_text(err), ::testing::HasSubstr("no training configuration (runs with epochs) for --max-time"));
  EXPECT_EQ(testing::run_jetchar({"analyze", "choose", runs, "--max-latency", "fast"}, out, err), kUsage);
  EXPECT_THAT(read_text(err), ::testing::HasSubstr("--max-latency 'fast' is not a latency"));
  EXPECT_EQ(testing::run_jetchar({"analyze", "choose", runs, "--max-latency", "2ms"}, out, err), kFailure);
  EXPECT_THAT(read_text(out), ::testing::HasSubstr("bert inference: no configuration meets the budget"));
}

}  // namespace
}  // namespace jetchar::cli
