// `jetchar analyze predict --reference` through the real jetchar: a new workload measured on 4 power
// modes adapts a reference workload measured on 144 (analysis/transfer_predictor.h), and predicts
// the whole grid better than the auto model fitted on its 4 modes alone; the output names the
// reference; a reference that is missing, holds no usable modes, holds several workloads without
// --reference-workload, or lacks the one named is bad input naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;

using jetchar::testing::read_text;

// Two workloads of one kind (not a form of the predictors): GPU and DRAM work overlapping as a
// 4-norm, CPU launch work that stops scaling at 4 cores, power rising with each clock as f·V(f)²
// weighted by how busy each resource is. `work` scales the GPU work, `launch` the CPU's.
struct Workload {
  double work = 1, launch = 1, gpu_power = 11;
  double gpu_s(double g) const { return 9 * work / g; }
  double time_s(int c, double f, double g, double m) const {
    return 0.3 + std::pow(std::pow(gpu_s(g), 4) + std::pow(3 / m, 4), 0.25) + launch / f * (0.3 + 0.7 / std::min(c, 4));
  }
  double power_w(int c, double f, double g, double m) const {
    const double busy = gpu_s(g) / time_s(c, f, g, m);
    const double vg = std::max(0.6, 0.6 + 0.4 * (g - 0.6)), vc = std::max(0.62, 0.62 + 0.3 * (f - 1.2));
    return 4.5 + 0.12 * c + 0.9 * std::min(c, 4) * f * vc * vc + gpu_power * busy * g * vg * vg + 1.6 * m;
  }
};

struct Mode {
  int c;
  double f, g, m;  // MHz
};

std::vector<Mode> grid() {
  std::vector<Mode> modes;
  for (int c : {2, 4, 8, 12})
    for (double f : {729.6, 1344.0, 2201.6})
      for (double g : {306.0, 612.0, 918.0, 1300.5})
        for (double m : {665.6, 2133.0, 3199.0}) modes.push_back({c, f, g, m});
  return modes;
}

class AnalyzePredictReferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Workload reference{1.6, 1.3, 9.5}, fresh{1.0, 1.0, 11.0};
    std::mt19937_64 rng(3);
    std::normal_distribution<double> noise(1.0, 0.01);
    std::ostringstream ref, runs, modes;
    const char* header = "workload,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz,epoch_time_s,avg_power_w\n";
    ref << header;
    runs << header;
    modes << "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz\n";
    ref.precision(10);
    runs.precision(10);
    const auto all = grid();
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Mode& x = all[i];
      const double f = x.f / 1e3, g = x.g / 1e3, m = x.m / 1e3;
      ref << "resnet18," << x.c << "," << x.f << "," << x.g << "," << x.m << ","
          << reference.time_s(x.c, f, g, m) * noise(rng) << "," << reference.power_w(x.c, f, g, m) * noise(rng) << "\n";
      modes << "m" << i << "," << x.c << "," << x.f << "," << x.g << "," << x.m << "\n";
      truth_.emplace_back(fresh.time_s(x.c, f, g, m), fresh.power_w(x.c, f, g, m));
    }
    // The new workload's 4 profiled modes: the corners of the clocks and two in between.
    for (const Mode& x : {Mode{12, 2201.6, 1300.5, 3199}, Mode{2, 729.6, 306, 665.6}, Mode{4, 1344, 918, 2133},
                          Mode{8, 2201.6, 612, 665.6}}) {
      const double f = x.f / 1e3, g = x.g / 1e3, m = x.m / 1e3;
      runs << "mobilenet," << x.c << "," << x.f << "," << x.g << "," << x.m << ","
           << fresh.time_s(x.c, f, g, m) * noise(rng) << "," << fresh.power_w(x.c, f, g, m) * noise(rng) << "\n";
    }
    reference_ = dir_.write("reference.csv", ref.str());
    runs_ = dir_.write("runs.csv", runs.str());
    modes_ = dir_.write("modes.csv", modes.str());
  }
  int run(const std::vector<std::string>& args) {
    return testing::run_jetchar(args, dir_.path() / "out.txt", dir_.path() / "err.txt");
  }
  std::string out() const { return read_text(dir_.path() / "out.txt"); }
  std::string err() const { return read_text(dir_.path() / "err.txt"); }
  // Time and power MAPE (%) of a --json document's predictions against the new workload's truth.
  std::pair<double, double> errors(const nlohmann::json& doc) const {
    const auto& p = doc.at("predictions");
    EXPECT_EQ(p.size(), truth_.size());
    double t = 0, w = 0;
    for (std::size_t i = 0; i < truth_.size(); ++i) {
      t += std::abs(p[i].at("time_s").at("value").get<double>() / truth_[i].first - 1);
      w += std::abs(p[i].at("power_w").at("value").get<double>() / truth_[i].second - 1);
    }
    return {100 * t / static_cast<double>(truth_.size()), 100 * w / static_cast<double>(truth_.size())};
  }

  testing::TempDir dir_;
  std::filesystem::path reference_, runs_, modes_;
  std::vector<std::pair<double, double>> truth_;
};

TEST_F(AnalyzePredictReferenceTest, FourModesAdaptTheReferenceAndBeatTheAutoModelAlone) {
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--json"}), 0) << err();
  const auto alone = errors(nlohmann::json::parse(out()));
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--json", "--reference",
                 reference_.string()}),
            0)
      << err();
  const auto doc = nlohmann::json::parse(out());
  const auto& ref = doc.at("reference");
  EXPECT_EQ(ref.at("results"), reference_.string());
  EXPECT_EQ(ref.at("workload"), "resnet18");
  EXPECT_EQ(ref.at("modes"), 144);
  EXPECT_EQ(ref.at("clock_mapping"), "absolute");
  EXPECT_EQ(doc.at("interval_level"), 0.9);
  for (const auto& p : doc.at("predictions")) {
    EXPECT_EQ(p.at("model"), "transfer:resnet18");
    EXPECT_EQ(p.at("workload"), "mobilenet");
    EXPECT_EQ(p.at("profiled"), 4);
    for (const char* what : {"time_s", "power_w", "energy_j"}) {
      EXPECT_LE(p.at(what).at("low").get<double>(), p.at(what).at("value").get<double>()) << what;
      EXPECT_GE(p.at(what).at("high").get<double>(), p.at(what).at("value").get<double>()) << what;
    }
  }
  const auto with = errors(doc);
  EXPECT_LT(with.second, alone.second);
  EXPECT_LT(with.first, alone.first + 0.5);
  EXPECT_LT(with.first, 5.0);
  EXPECT_LT(with.second, 5.0);
  EXPECT_THAT(err(), HasSubstr("transfer: each workload adapts reference 'resnet18' of " + reference_.string() +
                               " (144 modes"));

  // The CSV keeps its columns and names the model.
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", reference_.string()}),
            0)
      << err();
  EXPECT_THAT(out(), ::testing::ContainsRegex("\nmobilenet,,m0,2,729600,306000,665600,transfer:resnet18,4,"));
}

TEST_F(AnalyzePredictReferenceTest, AReferenceOfSeveralWorkloadsNeedsTheOneNamed) {
  std::string both = read_text(reference_);
  std::istringstream lines(both);
  std::string line, renamed;
  std::getline(lines, line);
  while (std::getline(lines, line)) renamed += "lenet5" + line.substr(line.find(',')) + "\n";
  const auto two = dir_.write("two.csv", both + renamed);
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", two.string()}),
            kBadInput);
  EXPECT_THAT(err(), HasSubstr("--reference " + two.string() +
                               " holds several workloads (lenet5, resnet18); choose one with --reference-workload"));
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", two.string(),
                 "--reference-workload", "vgg16"}),
            kBadInput);
  EXPECT_THAT(err(), HasSubstr("--reference-workload 'vgg16' is not a workload of " + two.string() +
                               "; its workloads: lenet5, "
                               "resnet18"));
  ASSERT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", two.string(),
                 "--reference-workload", "lenet5", "--json"}),
            0)
      << err();
  EXPECT_EQ(nlohmann::json::parse(out()).at("reference").at("workload"), "lenet5");
}

TEST_F(AnalyzePredictReferenceTest, BadReferencesAreBadInputNamingThem) {
  // Too few modes to be a reference.
  std::istringstream lines(read_text(reference_));
  std::string line, few;
  for (int i = 0; i < 6 && std::getline(lines, line); ++i) few += line + "\n";
  const auto small = dir_.write("small.csv", few);
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", small.string()}),
            kBadInput);
  EXPECT_THAT(err(), HasSubstr("--reference " + small.string() +
                               ": reference workload 'resnet18' has 5 measured modes; a reference needs at least 10"));
  // Runs without the power-mode knobs.
  const auto knobless = dir_.write("knobless.csv", "workload,epoch_time_s\nresnet18,1.5\n");
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", knobless.string()}),
            kBadInput);
  EXPECT_THAT(err(), HasSubstr("--reference " + knobless.string() + ": no configuration has all four knobs"));
  // A reference that does not exist.
  EXPECT_NE(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference",
                 (dir_.path() / "nope.csv").string()}),
            0);
  EXPECT_THAT(err(), HasSubstr("nope.csv"));
  // A fixed model cannot be adapted; the reference's options need a reference.
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", reference_.string(),
                 "--model", "nnls"}),
            kUsage);
  EXPECT_THAT(err(), HasSubstr("--reference adapts the auto model"));
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference-workload", "x"}),
            kUsage);
  EXPECT_EQ(run({"analyze", "predict", runs_.string(), "--modes", modes_.string(), "--reference", reference_.string(),
                 "--clock-mapping", "relative"}),
            kBadInput);
  EXPECT_THAT(err(), HasSubstr("relative"));
}

}  // namespace
}  // namespace jetchar::cli
