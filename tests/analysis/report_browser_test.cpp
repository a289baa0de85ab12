// Renders a report in a real headless Chromium, offline, and checks that Chart.js drew every chart
// (each canvas records how many pixels were painted, so none is empty) and that the answer is on
// the first screen: the "What to pick" sentence, and with a budget the budget's sentence, lie
// within the first kFirstScreenPx pixels of the page (report.js records where each lies); takes a
// screenshot for a human to look at; every Pareto front's chart labels some of its points. Reports:
// one from a hand-made table (every section, latency included, with a time budget), one with an
// adaptive_profile sweep's predictions, one of two board kinds side by side, one of data-parallel
// runs, one with the inference and batch-size pages, one written by `jetchar report` from the
// results directory of the shipped inference example, and one written by `jetchar report
// --max-time` from the results directory of a real sweep on the simulated AGX Orin. Skipped when
// no Chromium is installed.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/report.h"
#include "analysis/results_file.h"
#include "tests/analysis/sim_sweep.h"
#include "tests/analysis/synthetic_sweep.h"
#include "tests/support/build_tree.h"
#include "tests/support/temp_dir.h"

namespace jetchar::analysis {
namespace {

std::optional<std::filesystem::path> find_chromium() {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
      auto candidate = std::filesystem::path(dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return std::nullopt;
}

// Runs argv with stdout to `out_file` (stderr discarded); kills it after `timeout`. Exit status, or
// -1 when it had to be killed.
int run(const std::vector<std::string>& argv, const std::filesystem::path& out_file, std::chrono::seconds timeout) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::setpgid(0, 0);  // its own group, so a timeout can end the browser's helpers too
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using testing::read_text;

std::vector<RunRecord> demo_records() {
  std::string csv =
      "workload,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz,workers,epoch_time_s,stall_s,compute_s,epoch_energy_j,"
      "latency_avg_ms,latency_p50_ms,latency_p90_ms,latency_p95_ms,latency_p99_ms,latency_max_ms\n";
  for (int cores : {2, 4, 8, 12})
    for (double cpu : {0.73, 1.5, 2.2})
      for (double gpu : {0.3, 0.9, 1.3})
        for (int workers : {0, 4}) {
          auto m = testing::make_mode(cores, cpu, gpu, 3.199);
          double t = testing::true_time_s(m, {}), stall = (workers == 0 ? 0.25 : 0.05) * t;
          double lat = 1000 * t / 500;
          // Latency columns for a few configurations only; the others leave them empty.
          std::string latency = ",,,,,";
          if (cpu == 2.2 && gpu == 1.3 && workers == 4) {
            latency = fmt::format("{},{},{},{},{},{}", lat, lat * 0.95, lat * 1.2, lat * 1.3, lat * 1.7, lat * 2.5);
          }
          csv += fmt::format("resnet18,{},{},{},{},{},{},{},{},{},{}\n", cores, *m.cpu_freq_khz, *m.gpu_freq_khz,
                             *m.emc_freq_khz, workers, t, stall, t - stall, t * testing::true_power_w(m), latency);
        }
  return parse_results_csv(csv, "demo.csv");
}

// The height of a first screen (a 1080-pixel display less the browser's bars), in CSS pixels.
constexpr int kFirstScreenPx = 950;

// An answer sentence the first screen must show: its kind (data-answer: pick, budget, comparison)
// and text it contains, as the DOM has it (HTML-escaped).
struct Answer {
  std::string kind;
  std::string text;
  bool first_screen = true;  ///< false: anywhere on the page (a page below the Pareto fronts)
};

// Loads `page` in headless Chromium: every one of `expected_charts` canvases must be drawn with
// data and enough painted pixels, and every one of `answers` must be on the first screen; then a
// screenshot goes to <build>/<screenshot>.
void check_in_browser(const std::filesystem::path& chromium_path, const std::filesystem::path& page,
                      std::size_t expected_charts, const std::string& screenshot,
                      const std::vector<Answer>& answers = {{"pick", "for the least energy pick <strong>"}}) {
  jetchar::testing::TempDir dir;
  const std::optional<std::filesystem::path> chromium = chromium_path;
  const std::vector<std::string> common = {chromium->string(),
                                           "--headless",
                                           "--no-sandbox",
                                           "--disable-gpu",
                                           "--disable-background-networking",
                                           "--disable-component-update",
                                           "--disable-sync",
                                           "--no-first-run",
                                           "--user-data-dir=" + (dir.path() / "profile").string(),
                                           "--window-size=1200,2000"};
  auto dom_args = common;
  dom_args.push_back("--dump-dom");
  dom_args.push_back("file://" + page.string());
  ASSERT_EQ(run(dom_args, dir.path() / "dom.html", std::chrono::seconds(90)), 0);
  const std::string dom = read_text(dir.path() / "dom.html");

  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts-total=\"(\\d+)\" data-charts-drawn=\"(\\d+)\"")))
      << dom.substr(0, 2000);
  EXPECT_EQ(std::stoul(m[1]), expected_charts);
  EXPECT_EQ(std::stoul(m[2]), expected_charts);
  EXPECT_EQ(dom.find("data-error="), std::string::npos);
  std::regex painted("data-chart=\"([^\"]+)\"[^>]*data-points=\"(\\d+)\" data-painted=\"(\\d+)\"");
  std::size_t canvases = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), painted); it != std::sregex_iterator();
       ++it, ++canvases) {
    EXPECT_GT(std::stoul((*it)[2]), 0u) << (*it)[1];
    EXPECT_GT(std::stoul((*it)[3]), 5000u) << (*it)[1] << ": too few pixels painted";
  }
  EXPECT_EQ(canvases, expected_charts);
  // Pareto fronts carry their points' labels on the chart (report.js records how many it drew).
  std::regex labelled("data-chart=\"((?:pareto|predicted-front):\\d+)\"([^>]*)>");
  std::regex labels("data-labels=\"(\\d+)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), labelled); it != std::sregex_iterator(); ++it) {
    const std::string attributes = (*it)[2];
    std::smatch count;
    ASSERT_TRUE(std::regex_search(attributes, count, labels)) << (*it)[1] << " has no labels";
    EXPECT_GT(std::stoul(count[1]), 0u) << (*it)[1] << ": no point labelled";
  }

  // The answer first: each expected sentence lies, whole, on the first screen (where it must).
  std::regex sentence(
      "<p class=\"answer\" data-answer=\"([a-z]+)\" data-top=\"(\\d+)\" data-bottom=\"(\\d+)\">(.*?)</p>");
  for (const Answer& answer : answers) {
    bool found = false;
    for (auto it = std::sregex_iterator(dom.begin(), dom.end(), sentence); it != std::sregex_iterator(); ++it) {
      if ((*it)[1] != answer.kind || (*it)[4].str().find(answer.text) == std::string::npos) continue;
      found = true;
      if (answer.first_screen) {
        EXPECT_LE(std::stoi((*it)[3]), kFirstScreenPx)
            << answer.kind << " sentence below the first screen: " << (*it)[4];
      }
    }
    EXPECT_TRUE(found) << "no " << answer.kind << " sentence with \"" << answer.text << "\" in\n"
                       << dom.substr(0, 4000);
  }

  // A screenshot a person can look at: kept in the build tree.
  const auto shot = jetchar::testing::binary_dir() / screenshot;
  std::filesystem::remove(shot);
  auto shot_args = common;
  shot_args.push_back("--screenshot=" + shot.string());
  shot_args.push_back("file://" + page.string());
  ASSERT_EQ(run(shot_args, dir.path() / "shot.log", std::chrono::seconds(90)), 0);
  const std::string png = read_text(shot);
  ASSERT_GT(png.size(), 20000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(ReportBrowserIntegration, ChartsAreDrawnInHeadlessChromium) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  ReportOptions options;
  options.title = "jetchar browser test";
  std::vector<TraceSample> trace;
  for (int i = 0; i <= 200; ++i) {
    std::optional<std::string> marker;
    if (i % 50 == 0) marker = i % 100 == 0 ? "fetch" : "compute";
    trace.push_back({i * 0.01, (i % 100 < 50 ? 8.0 : 20.0) + (i % 7) * 0.2, marker});
  }
  options.trace = trace;
  options.budgets.max_time_s = 10.5;  // the fastest modelled epoch takes 9.9 s
  auto records = demo_records();
  auto page = dir.write("report.html", render_report(records, options));
  const std::size_t expected_charts = 1 /*pareto*/ + 1 /*stall*/ + 1 /*trace*/ + 2 /*prediction*/ + 1 /*latency*/;

  check_in_browser(*chromium, page, expected_charts, "analysis-report-screenshot.png",
                   {{"pick", "resnet18 (72 configurations): for the least energy pick <strong>"},
                    {"budget", "resnet18 within epoch time &lt;= 10.5 s: pick <strong>"}});
}

// The predicted-modes page (an adaptive_profile sweep's stored predictions): its predicted Pareto
// front chart is drawn beside the others.
TEST(ReportBrowserIntegration, ThePredictedParetoFrontIsDrawn) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  ReportOptions options;
  options.title = "jetchar browser test: predicted modes";
  int i = 0;
  for (int cores : {4, 8, 12})
    for (double gpu : {0.306, 0.51, 0.714, 0.918, 1.122, 1.3005}) {
      StoredModePrediction p;
      p.sweep = "ap";
      p.mode = testing::make_mode(cores, 2.2016, gpu, 3.199);
      const double t = testing::true_time_s(p.mode, {}), w = testing::true_power_w(p.mode);
      p.time_s = {t, t * 0.95, t * 1.06};
      p.power_w = Interval{w, w * 0.97, w * 1.03};
      p.energy_j = Interval{t * w, t * w * 0.93, t * w * 1.08};
      p.profiled = i++ % 5 == 0;
      if (p.profiled) p.measured_time_s = t * 1.01, p.measured_power_w = w * 0.99;
      options.mode_predictions.push_back(p);
    }
  auto page = dir.write("report.html", render_report(demo_records(), options));
  const std::size_t expected_charts =
      1 /*pareto*/ + 1 /*stall*/ + 2 /*prediction*/ + 1 /*predicted front*/ + 1 /*latency*/;
  check_in_browser(*chromium, page, expected_charts, "analysis-report-predicted-front-screenshot.png");
}

// Two results of two board kinds: the comparison page's chart is drawn, and its sentences follow
// "What to pick" (one per kind), with a power budget that no RTX mode meets.
TEST(ReportBrowserIntegration, TwoBoardKindsSideBySide) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  auto records = parse_results_csv(
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,MAXN,AGX Orin,16,1,2.0,20\nlenet,30W,AGX Orin,16,1,2.6,18\nlenet,15W,AGX Orin,16,1,4.0,16\n",
      "orin.csv");
  const auto rtx = parse_results_csv(
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,default,RTX 3090,16,1,0.5,60\nlenet,250W,RTX 3090,16,1,0.4,80\nlenet,200W,RTX 3090,16,1,0.45,70\n",
      "rtx.csv");
  records.insert(records.end(), rtx.begin(), rtx.end());
  ReportOptions options;
  options.title = "jetchar browser test: two board kinds";
  options.several_results = true;
  options.budgets.max_power_w = 50;
  auto page = dir.write("report.html", render_report(records, options));
  const std::size_t expected_charts = 1 /*comparison*/ + 2 /*pareto, one per kind*/;
  check_in_browser(*chromium, page, expected_charts, "analysis-report-comparison-screenshot.png",
                   {{"pick", "lenet board=AGX Orin (3 configurations): for the least energy pick <strong>15W"},
                    {"budget", "lenet board=AGX Orin within power &lt;= 50 W: pick <strong>15W"},
                    {"budget", "lenet board=RTX 3090: <strong>no configuration meets power &lt;= 50 W</strong>"},
                    {"comparison", "RTX 3090: at its fastest mode <strong>250W</strong> 5× the baseline's speed"}});
}

// Runs at 1, 2 and 4 ranks: the scaling page's chart is drawn and says how close to ideal the
// largest world came.
TEST(ReportBrowserIntegration, DataParallelScalingIsDrawn) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  const auto records = parse_results_csv(
      "workload,mode,batch,nproc_per_node,epoch,epoch_time_s,samples,epoch_energy_j,exposed_communication_s\n"
      "lenet,MAXN,32,1,1,2.0,1000,20,\nlenet,MAXN,32,2,1,2.5,2000,30,0.5\nlenet,MAXN,32,4,1,4.0,4000,60,2\n",
      "ranks.csv");
  ReportOptions options;
  options.title = "jetchar browser test: data-parallel scaling";
  auto page = dir.write("report.html", render_report(records, options));
  const std::size_t expected_charts = 1 /*scaling*/ + 1 /*pareto*/;
  check_in_browser(*chromium, page, expected_charts, "analysis-report-scaling-screenshot.png",
                   {{"scaling", "At 4 ranks: 1000 samples/s, 50 % of ideal scaling, 0.015 J per sample."}});
}

// Runs pretrained in two phases, in fp32 and fp16: the phases page draws one run's loss over its
// steps (from the store's step losses) and the other's per epoch (none kept), a line per phase,
// then each configuration's sequences/s per phase, and says the last phase's throughput and loss.
TEST(ReportBrowserIntegration, PretrainingPhasesAreDrawn) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  const auto records = parse_results_csv(
      "sweep,workload,mode,run_id,precision,epoch,phase,epoch_time_s,samples,loss\n"
      "s,electra-small/corpus,MAXN,0000-r0,FP32,0,1,2.0,400,40\ns,electra-small/"
      "corpus,MAXN,0000-r0,FP32,1,1,2.0,400,30\n"
      "s,electra-small/corpus,MAXN,0000-r0,FP32,2,2,4.0,100,25\ns,electra-small/"
      "corpus,MAXN,0000-r0,FP32,3,2,4.0,100,22.5\n"
      "s,electra-small/corpus,MAXN,0001-r0,FP16,0,1,1.0,400,41\ns,electra-small/"
      "corpus,MAXN,0001-r0,FP16,1,2,2.0,100,23\n",
      "phases.csv");
  ReportOptions options;
  options.title = "jetchar browser test: pretraining phases";
  PhaseStepLosses one{"s", "0000-r0", "", 1, {}}, two{"s", "0000-r0", "", 2, {}};
  for (int step = 0; step < 1500; ++step) one.losses.emplace_back(40.0 * std::exp(-step / 500.0) + 10);
  for (int step = 0; step < 200; ++step) two.losses.emplace_back(22.0 - step / 100.0);
  options.phase_steps = {one, two};
  auto page = dir.write("report.html", render_report(records, options));
  const std::size_t expected_charts = 3;  // two runs and the throughput; one configuration each: no Pareto front
  check_in_browser(*chromium, page, expected_charts, "analysis-report-phases-screenshot.png",
                   {{"phases", "2 phases; phase 2 trained 25 sequences/s to a loss of 22.5."}});
}

// The inference page (latency, throughput and energy against batch × sequence length, per power
// mode, or against the power modes where each ran one configuration) and the batch-size page of training (time, stall
// and energy per sample) are drawn; the inference page's sentence is on the first screen, the batch page's after the
// Pareto fronts.
TEST(ReportBrowserIntegration, TheInferenceAndBatchSizePagesAreDrawn) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  std::string inference =
      "workload,mode,batch,sequence_length,latency_p50_ms,latency_p90_ms,latency_p99_ms,throughput_samples_per_s,"
      "energy_per_query_j\n";
  for (const auto& [mode, slow] : std::vector<std::pair<std::string, double>>{{"MAXN", 1.0}, {"15W", 1.6}})
    for (int batch : {1, 2, 4, 8})
      for (int tokens : {128, 384}) {
        const double p50 = slow * (2 + 0.4 * batch * tokens / 128.0);
        inference += fmt::format("bert,{},{},{},{},{},{},{},{}\n", mode, batch, tokens, p50, p50 * 1.1, p50 * 1.3,
                                 1000 * batch / p50, p50 * (slow > 1 ? 8 : 14) / 1000);
      }
  // A sweep of modes at one batch: one group with the modes along x (bars).
  for (const auto& [mode, ms] : std::vector<std::pair<std::string, double>>{{"MAXN", 3}, {"30W", 4}, {"15W", 6}})
    inference += fmt::format("mobilenet,{},1,,{},{},{},{},{}\n", mode, ms, ms * 1.1, ms * 1.4, 1000 / ms, ms / 200);
  auto records = parse_results_csv(inference, "infer.csv");
  const auto training = parse_results_csv(
      "workload,mode,batch,epoch,epoch_time_s,samples,stall_s,epoch_energy_j\n"
      "lenet,MAXN,16,1,2.0,1000,0.5,20\nlenet,MAXN,64,1,1.0,1000,0.2,12\nlenet,MAXN,256,1,0.8,1000,0.32,14\n"
      "lenet,15W,16,1,4.0,1000,0.5,16\nlenet,15W,64,1,2.5,1000,0.4,10\n",
      "train.csv");
  records.insert(records.end(), training.begin(), training.end());
  ReportOptions options;
  options.title = "jetchar browser test: inference and batch sizes";
  auto page = dir.write("report.html", render_report(records, options));
  const std::size_t expected_charts = 6 /*inference: bert, 3 per mode*/ + 3 /*inference: mobilenet across modes*/ +
                                      3 /*pareto: bert and mobilenet inference, lenet*/ + 4 /*batch: 2 per mode*/ +
                                      1 /*latency*/;
  check_in_browser(*chromium, page, expected_charts, "analysis-report-inference-batch-screenshot.png",
                   {{"inference", "bert (16 configurations in 2 power modes): the most throughput is <strong>"},
                    {"batch", "lenet | 15W: batch <strong>64</strong> takes the least time per sample", false}});
}

// The shipped inference example, run as a user runs it (batch 1, 2, 4, 8 × 128 and 384 tokens on
// the simulated AGX Orin), then `jetchar report` on its results directory: every chart is drawn and
// the inference page's sentence is on the first screen.
TEST(ReportBrowserIntegration, ReportOfTheInferenceExamplesResultsDirectoryDrawsEveryChart) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  jetchar::testing::TempDir dir;
  const auto spec = jetchar::testing::source_dir() / "examples" / "sim-agx-orin-squad-inference.textproto";
  const auto results = dir.path() / "squad-inference";
  ASSERT_EQ(
      testing::run_jetchar({"sweep", "run", spec.string(), "--results", results.string()}, dir.path() / "sweep.log"), 0)
      << read_text(dir.path() / "sweep.log");
  const auto page = dir.path() / "report.html";
  ASSERT_EQ(testing::run_jetchar({"report", results.string(), "-o", page.string()}, dir.path() / "report.log"), 0)
      << read_text(dir.path() / "report.log");
  const std::string html = read_text(page);
  EXPECT_NE(html.find("<section id=\"inference\">"), std::string::npos);
  const std::size_t expected_charts = 3 /*inference: latency, throughput, energy*/ + 1 /*pareto*/ + 1 /*latency*/;
  check_in_browser(*chromium, page, expected_charts, "analysis-report-inference-example-screenshot.png",
                   {{"pick", "bert-tiny-qa/squad inference (8 configurations): for the least energy pick <strong>"},
                    {"inference", "bert-tiny-qa/squad (8 configurations): the most throughput is <strong>"}});
}

TEST(ReportBrowserIntegration, ReportOfASimulatedSweepsResultsDirectoryDrawsEveryPlot) {
  auto chromium = find_chromium();
  if (!chromium) GTEST_SKIP() << "no chromium in PATH (apt-get install chromium)";
  const auto sweep = testing::sim_sweep();
  ASSERT_TRUE(sweep.error.empty()) << sweep.error;
  jetchar::testing::TempDir dir;
  const auto page = dir.path() / "report.html";
  // The CLI, as a user runs it on what `jetchar sweep run` left behind.
  // A generous time budget, which some mode meets whatever this host's speed.
  ASSERT_EQ(testing::run_jetchar({"report", sweep.results.string(), "--max-time", "1000", "-o", page.string()},
                                 dir.path() / "report.log"),
            0)
      << read_text(dir.path() / "report.log");
  const std::string html = read_text(page);
  // Power over time comes from the store (the sweep keeps per-epoch power; samples when stored).
  EXPECT_NE(html.find("id=\"trace\""), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);  // everything inlined: works offline
  const std::size_t expected_charts = 1 /*pareto*/ + 1 /*stall*/ + 1 /*power over time*/ + 1 /*predicted vs measured*/;
  check_in_browser(
      *chromium, page, expected_charts, "analysis-report-sim-sweep-screenshot.png",
      {{"pick", "for the least energy pick <strong>"}, {"budget", "within epoch time &lt;= 1000 s: pick <strong>"}});
}

}  // namespace
}  // namespace jetchar::analysis
