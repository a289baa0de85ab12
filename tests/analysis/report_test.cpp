#include "analysis/report.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/results_file.h"
#include "tests/analysis/synthetic_sweep.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A sweep in the results layout: 16 modes × workers {0, 2}, stall/compute split, energy.
std::string sweep_csv() {
  std::string csv =
      "workload,cpu_cores,cpu_freq_khz,gpu_freq_hz,emc_freq_hz,workers,medium,epoch_time_s,stall_s,compute_s,epoch_"
      "energy_j\n";
  int i = 0;
  for (int cores : {2, 4, 8, 12})
    for (double cpu : {0.73, 2.2})
      for (double gpu : {0.3, 1.3})
        for (int workers : {0, 2}) {
          auto m = testing::make_mode(cores, cpu, gpu, 3.199);
          double t = testing::true_time_s(m, {}) * (1 + 0.003 * (i++ % 5));
          double stall = workers == 0 ? 0.3 * t : 0.1 * t;
          csv += fmt::format("resnet18,{},{},{},3199000000,{},nvme,{},{},{},{}\n", cores, *m.cpu_freq_khz,
                             *m.gpu_freq_khz * 1000, workers, t, stall, t - stall, t * testing::true_power_w(m));
        }
  return csv;
}

TEST(Report, DataHasEverySectionThatHasColumns) {
  auto records = parse_results_csv(sweep_csv(), "sweep.csv");
  ReportOptions options;
  options.trace = std::vector<TraceSample>{{0, 5, "epoch_start"}, {0.5, 12, std::nullopt}, {1.0, 6, "compute"}};
  options.trace_caption = "Run s/0001-r0 <epoch 1>";
  auto data = report_data(records, options);
  ASSERT_EQ(data["pareto"].size(), 1u);
  EXPECT_EQ(data["pareto"][0]["points"].size(), 32u);
  ASSERT_EQ(data["stall"].size(), 1u);
  EXPECT_EQ(data["stall"][0]["rows"].size(), 2u);  // workers 0 and 2 in one mode
  EXPECT_EQ(data["prediction"].size(), 2u);        // one per workers value
  EXPECT_EQ(data["prediction"][0]["rows"].size(), 16u);
  EXPECT_TRUE(data["latency"].empty());
  EXPECT_EQ(data["trace"]["markers"].size(), 2u);
  EXPECT_EQ(data["trace"]["samples"].size(), 3u);
  EXPECT_EQ(data["trace"]["caption"], "Run s/0001-r0 <epoch 1>");

  std::string html = render_report(records, options);
  EXPECT_THAT(html, HasSubstr("Chart.js v4"));
  EXPECT_THAT(html, HasSubstr("data-chart=\"pareto:0\""));
  EXPECT_THAT(html, HasSubstr("data-chart=\"stall:0\""));
  EXPECT_THAT(html, HasSubstr("data-chart=\"trace\""));
  EXPECT_THAT(html, HasSubstr("<p>Run s/0001-r0 &lt;epoch 1&gt;</p>"));  // where the trace comes from, escaped
  EXPECT_THAT(html, HasSubstr("data-chart=\"prediction:1\""));
  EXPECT_THAT(html, Not(HasSubstr("data-chart=\"latency\"")));
  EXPECT_THAT(html, HasSubstr("<table id=\"table-pareto-0\">"));
  EXPECT_THAT(html, Not(HasSubstr("src=\"http")));  // offline: nothing fetched
}

// What an adaptive_profile sweep stores (ResultsStoreReader::mode_predictions): 12 modes of one
// sweep, 3 of them profiled; time falls and power rises with the GPU clock.
std::vector<StoredModePrediction> stored_predictions() {
  std::vector<StoredModePrediction> out;
  int i = 0;
  for (int cores : {4, 8, 12})
    for (double gpu : {0.306, 0.714, 1.0, 1.3005}) {
      StoredModePrediction p;
      p.sweep = "ap";
      p.mode = testing::make_mode(cores, 2.2016, gpu, 3.199);
      p.mode.name = p.mode.label();
      const double t = 1 + 2 / gpu + 0.5 / cores, w = 5 + 0.2 * cores + 12 * gpu * gpu;
      p.time_s = {t, t * 0.95, t * 1.06};
      p.power_w = Interval{w, w * 0.97, w * 1.03};
      p.energy_j = Interval{t * w, t * w * 0.93, t * w * 1.08};
      p.profiled = i++ % 4 == 1;
      if (p.profiled) p.measured_time_s = t * 1.01, p.measured_power_w = w * 0.99;
      p.time_form = "nested";
      p.power_form = "voltage";
      p.modelled = true;
      out.push_back(p);
    }
  return out;
}

TEST(Report, PredictedModesGetAPageWithThePredictedParetoFront) {
  auto records = parse_results_csv(sweep_csv(), "sweep.csv");
  ReportOptions options;
  EXPECT_TRUE(report_data(records, options)["mode_predictions"].empty());
  EXPECT_THAT(render_report(records, options), Not(HasSubstr("id=\"mode-predictions\"")));

  options.mode_predictions = stored_predictions();
  const auto data = report_data(records, options);
  ASSERT_EQ(data["mode_predictions"].size(), 1u);
  const auto& group = data["mode_predictions"][0];
  EXPECT_EQ(group["label"], "sweep ap");
  EXPECT_EQ(group["modes"], 12);
  EXPECT_EQ(group["profiled"], 3);
  ASSERT_EQ(group["rows"].size(), 12u);
  ASSERT_EQ(group["points"].size(), 12u);
  // The same front as analysis/mode_predictions.h gives, profiled modes at their measured values.
  const auto fronts = predicted_pareto_fronts(options.mode_predictions);
  ASSERT_EQ(group["front"].size(), fronts[0].front.size());
  EXPECT_EQ(group["measured_on_front"].get<std::size_t>() + group["predicted_on_front"].get<std::size_t>(),
            fronts[0].front.size());
  for (const auto& row : group["rows"]) {
    if (row["status"] == "profiled") {
      EXPECT_FALSE(row["measured_time_s"].is_null());
    } else {
      EXPECT_TRUE(row["measured_time_s"].is_null());
    }
    EXPECT_LE(row["time_low_s"].get<double>(), row["time_s"].get<double>());
    EXPECT_GE(row["energy_high_j"].get<double>(), row["energy_j"].get<double>());
  }
  for (const auto& p : group["points"]) {
    if (p["measured"].get<bool>()) {
      EXPECT_DOUBLE_EQ(p["time_low_s"].get<double>(), p["time_s"].get<double>());
    }
  }
  const std::string html = render_report(records, options);
  EXPECT_THAT(html, HasSubstr("<section id=\"mode-predictions\"><h2>Predicted power modes</h2>"));
  EXPECT_THAT(html, HasSubstr("data-chart=\"predicted-front:0\""));
  EXPECT_THAT(html, HasSubstr("id=\"table-predicted-front-0\""));
  EXPECT_THAT(html, HasSubstr("id=\"table-mode-predictions-0\""));
  EXPECT_THAT(html, HasSubstr("12 power modes, 3 profiled; 90 % intervals; forms nested/voltage; times from the "
                              "simulated board's time model (MODELLED)."));

  // Without power there is no energy: the modes are listed, no front is drawn.
  for (auto& p : options.mode_predictions) p.power_w.reset(), p.energy_j.reset(), p.measured_power_w.reset();
  const std::string time_only = render_report(records, options);
  EXPECT_THAT(time_only, HasSubstr("id=\"table-mode-predictions-0\""));
  EXPECT_THAT(time_only, Not(HasSubstr("predicted-front:0")));
  EXPECT_THAT(time_only, HasSubstr("No power was measured"));
}

// A simulated board's figures say so in the header and in every section's heading.
TEST(Report, ASimulatedBoardsReportSaysSimulatedOnEverySection) {
  const std::string csv =
      "workload,mode,batch,epoch_time_s,epoch_energy_j,stall_s,compute_s,simulated\n"
      "lenet,MAXN,16,1,2,0.1,0.9,{0}\nlenet,5W,16,2,1.5,0.1,1.9,{0}\n";
  const std::string simulated = render_report(parse_results_csv(fmt::format(fmt::runtime(csv), "true"), "r.csv"), {});
  EXPECT_THAT(simulated, HasSubstr("<strong>SIMULATED</strong>: 2 of 2 rows come from a simulated board"));
  std::size_t headings = 0, marked = 0;
  for (auto at = simulated.find("<h2>"); at != std::string::npos; at = simulated.find("<h2>", at + 1)) {
    ++headings;
    const auto end = simulated.find("</h2>", at);
    marked += simulated.substr(at, end - at).find("(SIMULATED)") != std::string::npos ? 1 : 0;
  }
  EXPECT_GE(headings, 3u);  // the recommendation, Pareto and stall at least
  EXPECT_EQ(marked, headings);
  const std::string measured = render_report(parse_results_csv(fmt::format(fmt::runtime(csv), "false"), "r.csv"), {});
  EXPECT_THAT(measured, Not(HasSubstr("SIMULATED")));
}

// The first section answers the question: per workload, the mode for the least energy and the one
// for the least time, with their figures and what they rest on.
TEST(Report, TheFirstSectionNamesTheModeToPick) {
  const auto records = parse_results_csv(
      "workload,mode,batch,repetition,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,MAXN,16,0,1,1.0,2.0\nlenet,MAXN,16,1,1,1.2,2.2\nlenet,5W,16,0,1,2,1.5\n",
      "r.csv");
  const std::string html = render_report(records, {});
  const auto section = html.find("<section id=\"recommendation\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, html.find("<section id=\"pareto\">"));
  EXPECT_THAT(html, HasSubstr("lenet (2 configurations): for the least energy pick <strong>5W</strong>: 2 s and 1.5 J "
                              "per epoch (median of 1 sample; one run, so no spread); for the least time pick "
                              "<strong>MAXN</strong>: 1.1 s and 2.1 J per epoch (median of 2 samples; CV "));
}

// The chart labels each front point with what tells it apart (analysis/chart_labels.h), and an axis
// whose values lie within 10 % of each other says so (analysis/narrow_spread.h).
TEST(Report, ParetoPointsCarryShortLabelsAndANarrowSpreadIsSaid) {
  const auto records = parse_results_csv(
      "workload,mode,batch,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,MAXN,16,1,1.00,10\nlenet,30W,16,1,1.02,8\nlenet,15W,16,1,1.05,7\nlenet,10W,16,1,1.04,9\n",
      "r.csv");
  const auto data = report_data(records, {});
  const auto& group = data["pareto"][0];
  std::vector<std::string> front;
  for (const auto& p : group["points"]) {
    if (p["front"].get<bool>()) front.push_back(p["short"]);
  }
  std::sort(front.begin(), front.end());
  EXPECT_EQ(front, (std::vector<std::string>{"15W", "30W", "MAXN"}));  // 10W: 30W is faster and cheaper
  EXPECT_EQ(group["time_note"], "epoch times span 5.0 % (1.00–1.05 s)");
  EXPECT_EQ(group["energy_note"], "");  // 7 to 10 J: the ticks show it
  const std::string html = render_report(records, {});
  EXPECT_THAT(html, HasSubstr("the Pareto front joined, its points labelled (a label that would cover another is left "
                              "out: the table names every point). Note: epoch times span 5.0 % (1.00–1.05 s); the "
                              "axis fits them, which stretches the difference</figcaption>"));

  // A wide spread: no note.
  const auto wide = parse_results_csv(
      "workload,mode,batch,epoch,epoch_time_s,epoch_energy_j\nlenet,MAXN,16,1,1,10\nlenet,15W,16,1,2,7\n", "r.csv");
  EXPECT_EQ(report_data(wide, {})["pareto"][0]["time_note"], "");
  EXPECT_THAT(render_report(wide, {}), Not(HasSubstr("Note: epoch times span")));
}

TEST(Report, UserTextCannotBreakOutOfTheDocument) {
  auto records =
      parse_results_csv("workload,epoch_time_s,epoch_energy_j,latency_p50_ms\n\"</script><b>x</b>\",1,2,3\n", "r.csv");
  ReportOptions options;
  options.title = "<i>title</i>";
  std::string html = render_report(records, options);
  EXPECT_THAT(html, Not(HasSubstr("</script><b>")));
  EXPECT_THAT(html, Not(HasSubstr("<b>x</b>")));
  EXPECT_THAT(html, HasSubstr("&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;"));
  EXPECT_THAT(html, HasSubstr("\\u003c/script>\\u003cb>"));
  EXPECT_THAT(html, HasSubstr("<title>&lt;i&gt;title&lt;/i&gt;</title>"));
  EXPECT_THAT(html, HasSubstr("data-chart=\"latency\""));
}

TEST(Report, EmptyResultsStillRender) {
  auto records = parse_results_csv("workload,epoch_time_s,status\nx,,FAILED\n", "r.csv");
  std::string html = render_report(records, {});
  EXPECT_THAT(html, HasSubstr("1 FAILED"));
  EXPECT_THAT(html, Not(HasSubstr("<canvas")));
}

}  // namespace
}  // namespace jetchar::analysis

namespace jetchar::analysis {
namespace {

// A fleet: two kinds, the first with three boards. The report shows one front per kind and a
// fleet page with every board and the spread of one configuration across the boards of a kind.
TEST(Report, AFleetGetsAFrontPerKindAndAFleetPage) {
  std::vector<RunRecord> records;
  const auto add = [&](const std::string& device, const std::string& kind, int cores, double time_s) {
    RunRecord r;
    r.workload = "lenet5";
    r.mode = testing::make_mode(cores, 1.5, 0.6, 3.199);
    r.axes["board"] = kind;
    r.device = device;
    r.run_id = device + "-" + std::to_string(cores);
    r.epoch = 1;
    r.epoch_time_s = time_s;
    r.epoch_energy_j = time_s * (3 + cores);
    records.push_back(r);
  };
  for (const auto& [device, scale] :
       std::vector<std::pair<std::string, double>>{{"orin/1", 1.0}, {"orin/2", 1.02}, {"orin/3", 0.99}}) {
    add(device, "AGX Orin", 2, 4.0 * scale);
    add(device, "AGX Orin", 4, 2.5 * scale);
  }
  add("nano/9", "Orin Nano", 2, 7.0);
  add("nano/9", "Orin Nano", 4, 5.0);
  const auto data = report_data(records, {});
  ASSERT_EQ(data["pareto"].size(), 2u) << data["pareto"].dump();
  EXPECT_THAT(data["pareto"][0]["label"].get<std::string>(), HasSubstr("board=AGX Orin"));
  EXPECT_THAT(data["pareto"][1]["label"].get<std::string>(), HasSubstr("board=Orin Nano"));
  ASSERT_FALSE(data["fleet"].is_null());
  EXPECT_EQ(data["fleet"]["boards"].size(), 4u);
  // Per-device medians of one configuration: the two AGX Orin modes, over 3 boards each.
  ASSERT_EQ(data["fleet"]["variability"].size(), 2u) << data["fleet"].dump();
  EXPECT_EQ(data["fleet"]["variability"][0]["n"], 3);
  const std::string html = render_report(records, {});
  EXPECT_THAT(html, HasSubstr("<section id=\"fleet\">"));
  EXPECT_THAT(html, HasSubstr("<table id=\"table-fleet-variability\">"));

  // One board: no fleet page.
  records.resize(2);
  EXPECT_TRUE(report_data(records, {})["fleet"].is_null());
}

}  // namespace
}  // namespace jetchar::analysis

namespace jetchar::analysis {
namespace {

using nlohmann::json;

// Three modes of one training workload: MAXN fast and hungry (about 20 W), 30W between (about
// 12 W), 15W slow and frugal (5 W); two repetitions of the first two.
std::vector<RunRecord> budget_records() {
  return parse_results_csv(
      "workload,mode,batch,repetition,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,MAXN,16,0,1,1.0,20\nlenet,MAXN,16,1,1,1.1,21\n"
      "lenet,30W,16,0,1,1.5,18\nlenet,30W,16,1,1,1.6,18.4\n"
      "lenet,15W,16,0,1,3.0,15\n",
      "r.csv");
}

// The budget's sentence in "What to pick" (the paragraph marked data-answer="budget").
std::string budget_paragraph(const std::string& html) {
  const auto at = html.find("data-answer=\"budget\"");
  if (at == std::string::npos) return "";
  return html.substr(at, html.find("</p>", at) - at);
}

// --max-time: the least-energy configuration within it, chosen as `analyze choose --max-time`,
// in a sentence with its figures and how sure they are, on the first section.
TEST(ReportBudget, NamesTheLeastEnergyConfigurationWithinATimeBudget) {
  const auto records = budget_records();
  ReportOptions options;
  EXPECT_TRUE(report_data(records, options)["recommendation"][0]["budget"].is_null());
  EXPECT_EQ(budget_paragraph(render_report(records, options)), "");  // no budget, no sentence

  options.budgets.max_time_s = 2;
  const auto data = report_data(records, options);
  const auto& budget = data["recommendation"][0]["budget"];
  EXPECT_EQ(budget["budget"], "epoch time <= 2 s");
  EXPECT_EQ(budget["meeting"], 2);
  EXPECT_EQ(budget["pick"]["mode"], "30W");
  EXPECT_EQ(budget["pick"]["runs"], 2);
  EXPECT_FALSE(budget["pick"]["ci_low"].is_null());
  const std::string html = render_report(records, options);
  const std::string sentence = budget_paragraph(html);
  EXPECT_THAT(sentence, HasSubstr("lenet within epoch time &lt;= 2 s: pick <strong>30W</strong>: 1.55 s and 18.2 J per "
                                  "epoch (median of 2 samples; CV 4.6 % across repetitions, 95 % interval of the "
                                  "median 1.5–1.6 s (bootstrap over 2 runs)) at 11.8 W, the least energy of the 2 of 3 "
                                  "configurations that meet it."));
  // It follows the unbudgeted answer, in the first section, before any chart.
  EXPECT_LT(html.find("data-answer=\"pick\""), html.find("data-answer=\"budget\""));
  EXPECT_LT(html.find("data-answer=\"budget\""), html.find("<section id=\"pareto\">"));

  // A power budget alone: the least energy among the configurations drawing no more.
  options.budgets = {.max_time_s = std::nullopt, .max_latency_s = std::nullopt, .max_power_w = 13};
  EXPECT_EQ(report_data(records, options)["recommendation"][0]["budget"]["pick"]["mode"], "15W");
  EXPECT_THAT(budget_paragraph(render_report(records, options)),
              HasSubstr("lenet within power &lt;= 13 W: pick <strong>15W</strong>: 3 s and 15 J per epoch (median of 1 "
                        "sample; one run, so no spread) at 5 W, the least energy of the 2 of 3"));
}

// No configuration meets the budget: the report says so plainly and names the closest, by how
// much it misses each budget.
TEST(ReportBudget, SaysPlainlyWhenNoneMeetsItAndWhichComesClosest) {
  const auto records = budget_records();
  ReportOptions options;
  options.budgets.max_time_s = 0.5;
  EXPECT_THAT(budget_paragraph(render_report(records, options)),
              HasSubstr("lenet: <strong>no configuration meets epoch time &lt;= 0.5 s</strong> (3 measured). The "
                        "closest is <strong>MAXN</strong>: 1.05 s and 20.5 J per epoch (median of 2 samples; CV "));
  EXPECT_THAT(budget_paragraph(render_report(records, options)), HasSubstr("(epoch time 110.0 % over)."));

  // Both budgets: the fastest mode draws too much and the frugal one is too slow; 30W misses the
  // power budget by the least.
  options.budgets.max_time_s = 2;
  options.budgets.max_power_w = 10;
  const auto data = report_data(records, options);
  const auto& budget = data["recommendation"][0]["budget"];
  EXPECT_TRUE(budget["pick"].is_null());
  EXPECT_EQ(budget["meeting"], 0);
  EXPECT_EQ(budget["closest"]["mode"], "30W");
  const std::string sentence = budget_paragraph(render_report(records, options));
  EXPECT_THAT(sentence, HasSubstr("no configuration meets epoch time &lt;= 2 s and power &lt;= 10 W"));
  EXPECT_THAT(sentence, HasSubstr("The closest is <strong>30W</strong>: 1.55 s"));
  EXPECT_THAT(sentence, HasSubstr("(power 17.5 % over)."));
}

// --max-latency judges inference configurations by their p99 latency, in ms, with energy per
// query where the runs have no energy per sample (an export older than that column); a time
// budget does not judge them (no sentence).
TEST(ReportBudget, ALatencyBudgetJudgesInferenceConfigurations) {
  const auto records = parse_results_csv(
      "workload,mode,task,batch,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,energy_per_query_j\n"
      "bert,MAXN,INFER,1,2,3,500,0.02\nbert,MAXN,INFER,8,10,14,800,0.1\n"
      "bert,15W,INFER,1,4,6,250,0.015\nbert,15W,INFER,8,30,45,266,0.09\n",
      "infer.csv");
  ReportOptions options;
  options.budgets.max_time_s = 1;
  EXPECT_TRUE(report_data(records, options)["recommendation"][0]["budget"].is_null());

  options.budgets = {.max_time_s = 1, .max_latency_s = 0.010, .max_power_w = std::nullopt};
  std::string sentence = budget_paragraph(render_report(records, options));
  EXPECT_THAT(sentence, HasSubstr("bert inference within p99 latency &lt;= 10 ms: pick <strong>15W</strong> batch=1: 6 "
                                  "ms and 0.015 J per query (median of 1 sample; one run, so no spread) at 3.75 W, the "
                                  "least energy of the 2 of 4 configurations that meet it."));

  options.budgets.max_latency_s = 0.002;
  sentence = budget_paragraph(render_report(records, options));
  EXPECT_THAT(sentence, HasSubstr("bert inference: <strong>no configuration meets p99 latency &lt;= 2 ms</strong> (4 "
                                  "measured). The closest is <strong>MAXN</strong> batch=1: 3 ms"));
  EXPECT_THAT(sentence, HasSubstr("(p99 latency 50.0 % over)."));
}

// With each run's energy per sample, the front and the picks judge inference by it: a batch of 8
// spends more per query than a batch of 1 and less per sample, so within 20 ms MAXN's batch of 8
// (0.0125 J/sample) beats 15W's batch of 1 (0.015), which J/query would pick. The header says what
// inference medians are over, and nothing of warm epochs where no run trains.
TEST(ReportBudget, InferenceIsJudgedByEnergyPerSampleAcrossBatchSizes) {
  const auto records = parse_results_csv(
      "workload,mode,task,batch,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,energy_per_query_j,"
      "energy_per_query_sample_j\n"
      "bert,MAXN,INFER,1,2,3,500,0.02,0.02\nbert,MAXN,INFER,8,10,14,800,0.1,0.0125\n"
      "bert,15W,INFER,1,4,6,250,0.015,0.015\nbert,15W,INFER,8,30,45,266,0.09,0.01125\n",
      "infer.csv");
  ReportOptions options;
  options.budgets.max_latency_s = 0.020;
  const std::string html = render_report(records, options);
  EXPECT_THAT(budget_paragraph(html),
              HasSubstr("bert inference within p99 latency &lt;= 20 ms: pick <strong>MAXN</strong> batch=8: 14 ms and "
                        "0.0125 J per sample"));
  const auto data = report_data(records, options);
  EXPECT_EQ(data["recommendation"][0]["least_energy"]["mode"], "15W");
  EXPECT_EQ(data["recommendation"][0]["least_energy"]["axes"], "batch=8");
  EXPECT_EQ(data["pareto"][0]["energy_title"], "energy per sample (J)");
  EXPECT_THAT(html, Not(HasSubstr("warm epochs")));
  EXPECT_THAT(html, HasSubstr("judge it by the p99 latency of a query and the energy per sample."));
}

// Two results of two board kinds (as two stores or exports given to `jetchar report A B`): one
// front and one pick per kind, and a comparison page with the figures `analyze compare` gives.
std::vector<RunRecord> two_kinds() {
  auto records = parse_results_csv(
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,MAXN,AGX Orin,16,1,2.0,20\nlenet,15W,AGX Orin,16,1,4.0,16\n",
      "orin.csv");
  const auto rtx = parse_results_csv(
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
      "lenet,default,RTX 3090,16,1,0.5,60\nlenet,250W,RTX 3090,16,1,0.4,80\n",
      "rtx.csv");
  records.insert(records.end(), rtx.begin(), rtx.end());
  return records;
}

TEST(ReportComparison, SeveralResultsOfTwoKindsGetAComparisonPage) {
  const auto records = two_kinds();
  ReportOptions options;
  // One results file: the report is as it was (no comparison, no kind axis).
  EXPECT_TRUE(report_data(records, options)["comparison"].is_null());
  EXPECT_THAT(render_report(records, options), Not(HasSubstr("id=\"comparison\"")));

  options.several_results = true;
  const auto data = report_data(records, options);
  ASSERT_EQ(data["pareto"].size(), 2u);  // one front per kind
  EXPECT_THAT(data["pareto"][0]["label"].get<std::string>(), HasSubstr("board=AGX Orin"));
  ASSERT_EQ(data["recommendation"].size(), 2u);
  EXPECT_EQ(data["recommendation"][1]["fastest"]["mode"], "250W");
  const auto& comparison = data["comparison"];
  EXPECT_EQ(comparison["kinds"], json::array({"AGX Orin", "RTX 3090"}));
  ASSERT_EQ(comparison["configurations"].size(), 1u);
  const auto& c = comparison["configurations"][0];
  EXPECT_EQ(c["baseline"], "AGX Orin");
  ASSERT_EQ(c["rows"].size(), 2u);
  const auto& rtx = c["rows"][1];
  EXPECT_EQ(rtx["kind"], "RTX 3090");
  EXPECT_EQ(rtx["fastest_mode"], "250W");
  EXPECT_DOUBLE_EQ(rtx["speedup"].get<double>(), 5.0);
  EXPECT_EQ(rtx["least_energy_mode"], "default");
  EXPECT_DOUBLE_EQ(rtx["energy_ratio"].get<double>(), 60.0 / 16);
  EXPECT_DOUBLE_EQ(rtx["perf_per_watt_ratio"].get<double>(), 16.0 / 60);

  const std::string html = render_report(records, options);
  const auto section = html.find("<section id=\"comparison\"><h2>Board kinds side by side</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(html.find("<section id=\"recommendation\">"), section);
  EXPECT_LT(section, html.find("<section id=\"pareto\">"));
  EXPECT_THAT(html, HasSubstr("<h3>lenet (baseline AGX Orin)</h3>"));
  EXPECT_THAT(html, HasSubstr("RTX 3090: at its fastest mode <strong>250W</strong> 5× the baseline's speed (0.4 s "
                              "against 2 s at MAXN); at its least-energy mode <strong>default</strong> it takes 3.75× "
                              "the baseline's energy per sample (60 J against 16 J at 15W), 0.267× its performance per "
                              "watt."));
  EXPECT_THAT(html, HasSubstr("data-chart=\"comparison:0\""));
  EXPECT_THAT(html, HasSubstr("<table id=\"table-comparison-0\">"));

  // Against another baseline, as `analyze compare --baseline`; one that measured nothing is bad input.
  options.baseline = "RTX 3090";
  EXPECT_EQ(report_data(records, options)["comparison"]["configurations"][0]["baseline"], "RTX 3090");
  options.baseline = "Nano";
  EXPECT_THROW(report_data(records, options), std::invalid_argument);
}

// --energy meter: every page judges runs by the meter each run configured, and the header says so
// per kind; by default the boards' own sensors, named the same way.
TEST(ReportComparison, TheEnergySourceIsTheMetersWhenAskedAndNamedInTheHeader) {
  const std::string header =
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j,energy_source,meter,meter_energy_j\n";
  auto records = parse_results_csv(header +
                                       "lenet,MAXN,AGX Orin,16,1,2.0,20,VDD_IN,hioki:/dev/ttyUSB0,30\n"
                                       "lenet,15W,AGX Orin,16,1,4.0,16,VDD_IN,hioki:/dev/ttyUSB0,34\n",
                                   "orin.csv");
  const auto rtx = parse_results_csv(header +
                                         "lenet,default,RTX 3090,16,1,0.5,60,NVML,hioki:/dev/ttyUSB1,100\n"
                                         "lenet,250W,RTX 3090,16,1,0.4,80,NVML,hioki:/dev/ttyUSB1,110\n",
                                     "rtx.csv");
  records.insert(records.end(), rtx.begin(), rtx.end());
  ReportOptions options;
  options.several_results = true;
  EXPECT_EQ(report_data(records, options)["energy"]["from"], "AGX Orin: VDD_IN; RTX 3090: NVML");
  EXPECT_THAT(
      render_report(records, options),
      HasSubstr("<p class=\"energy\">Energy: each board's own sensors (AGX Orin: VDD_IN; RTX 3090: NVML).</p>"));

  options.energy = EnergySource::kMeter;
  const auto data = report_data(records, options);
  EXPECT_EQ(data["energy"]["source"], "meter");
  // At the wall the Orin's least-energy mode is MAXN (30 J), not 15W (its rails' 16 J).
  EXPECT_EQ(data["recommendation"][0]["least_energy"]["mode"], "MAXN");
  const auto& orin = data["comparison"]["configurations"][0]["rows"][0];
  EXPECT_EQ(orin["least_energy_mode"], "MAXN");
  EXPECT_DOUBLE_EQ(orin["energy_j"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(data["comparison"]["configurations"][0]["rows"][1]["energy_ratio"].get<double>(), 100.0 / 30);
  EXPECT_THAT(render_report(records, options),
              HasSubstr("Energy: the external meter each run's spec configured (AGX Orin: meter hioki:/dev/ttyUSB0; "
                        "RTX 3090: meter hioki:/dev/ttyUSB1)."));
  EXPECT_THROW(report_data(two_kinds(), options), std::invalid_argument) << "no meter in these runs";
}

// Several results of one kind are one report; the comparison page says there is nothing to compare.
TEST(ReportComparison, SeveralResultsOfOneKindSayThereIsNothingToCompare) {
  auto records = two_kinds();
  records.resize(2);
  ReportOptions options;
  options.several_results = true;
  const auto data = report_data(records, options);
  EXPECT_EQ(data["pareto"].size(), 1u);
  EXPECT_TRUE(data["comparison"]["configurations"].empty());
  EXPECT_THAT(render_report(records, options),
              HasSubstr("These results measured one board kind (AGX Orin): nothing to compare."));
}

}  // namespace
}  // namespace jetchar::analysis
