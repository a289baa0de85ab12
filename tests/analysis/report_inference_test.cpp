#include "analysis/report_inference.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/config_point.h"
#include "analysis/report.h"
#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// BERT inference in two power modes, batch 1 and 8 × 128 and 384 tokens: MAXN is the faster mode
// and 15W the more frugal one; the larger batch gives the throughput and the least energy per sample.
std::string inference_csv(bool per_sample_column = true) {
  std::string csv =
      "workload,mode,task,batch,sequence_length,latency_p50_ms,latency_p90_ms,latency_p99_ms,throughput_samples_per_"
      "s,energy_per_query_j";
  csv += per_sample_column ? ",energy_per_query_sample_j\n" : "\n";
  const auto row = [&](const char* mode, int batch, int tokens, double p50, double p90, double p99,
                       double samples_per_s, double joules) {
    csv += fmt::format("bert,{},INFER,{},{},{},{},{},{},{}", mode, batch, tokens, p50, p90, p99, samples_per_s, joules);
    csv += per_sample_column ? fmt::format(",{}\n", joules / batch) : "\n";
  };
  row("MAXN", 1, 128, 2, 2.2, 3, 500, 0.02);
  row("MAXN", 8, 128, 8, 9, 10, 1000, 0.08);
  row("MAXN", 1, 384, 4, 4.5, 5, 250, 0.04);
  row("MAXN", 8, 384, 20, 22, 25, 400, 0.2);
  row("15W", 1, 128, 3, 3.3, 4, 333, 0.012);
  row("15W", 8, 128, 12, 13, 15, 667, 0.06);
  row("15W", 1, 384, 6, 6.5, 7, 167, 0.03);
  row("15W", 8, 384, 30, 33, 36, 267, 0.16);
  return csv;
}

nlohmann::json section_of(const std::vector<RunRecord>& records) {
  return inference_section(aggregate(records), records);
}

TEST(ReportInference, OneGroupPerPowerModeWithBatchAlongXAndSequenceLengthAsSeries) {
  const auto records = parse_results_csv(inference_csv(), "infer.csv");
  const auto section = section_of(records);
  ASSERT_EQ(section["groups"].size(), 2u);
  const auto& group = section["groups"][1];
  EXPECT_EQ(group["label"], "bert | MAXN");
  EXPECT_EQ(group["mode"], "MAXN");
  EXPECT_EQ(group["x_axis"], "batch");
  EXPECT_EQ(group["x_values"], nlohmann::json({"1", "8"}));
  EXPECT_EQ(group["series"], nlohmann::json({"128 tokens", "384 tokens"}));
  ASSERT_EQ(group["rows"].size(), 4u);
  const auto& row = group["rows"][1];  // 128 tokens, batch 8
  EXPECT_EQ(row["batch"], "8");
  EXPECT_EQ(row["sequence_length"], "128");
  EXPECT_EQ(row["config"], "batch 8 × 128 tokens");
  EXPECT_DOUBLE_EQ(row["p50_ms"].get<double>(), 8);
  EXPECT_DOUBLE_EQ(row["p90_ms"].get<double>(), 9);
  EXPECT_DOUBLE_EQ(row["p99_ms"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(row["throughput"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(row["energy_per_query_j"].get<double>(), 0.08);
  EXPECT_DOUBLE_EQ(row["energy_per_sample_j"].get<double>(), 0.01);
  EXPECT_TRUE(group["has_throughput"].get<bool>());
  EXPECT_TRUE(group["has_energy"].get<bool>());
}

TEST(ReportInference, TheSentenceNamesTheMostThroughputTheLowestLatencyAndTheLeastEnergyPerSample) {
  const auto records = parse_results_csv(inference_csv(), "infer.csv");
  const auto section = section_of(records);
  ASSERT_EQ(section["workloads"].size(), 1u);
  const auto& summary = section["workloads"][0];
  EXPECT_EQ(summary["configurations"], 8);
  EXPECT_EQ(summary["modes"], 2);
  EXPECT_EQ(summary["most_throughput"]["config"], "batch 8 × 128 tokens in MAXN");
  EXPECT_EQ(summary["lowest_latency"]["config"], "batch 1 × 128 tokens in MAXN");
  EXPECT_EQ(summary["least_energy_per_sample"]["config"], "batch 8 × 128 tokens in 15W");

  report_html::ChartCanvases canvases;
  const std::string html = inference_html(section, canvases);
  EXPECT_THAT(html, HasSubstr("<p class=\"answer\" data-answer=\"inference\">bert (8 configurations in 2 power modes): "
                              "the most throughput is <strong>1000 samples/s</strong> at batch 8 × 128 tokens in MAXN "
                              "(p99 latency 10 ms, 0.01 J per sample); the lowest p99 latency is <strong>3 ms</strong> "
                              "at batch 1 × 128 tokens in MAXN (500 samples/s); the least energy per sample is "
                              "<strong>0.0075 J</strong> at batch 8 × 128 tokens in 15W.</p>"));
  for (const char* chart : {"inference-latency:0", "inference-throughput:0", "inference-energy:0",
                            "inference-latency:1", "inference-throughput:1", "inference-energy:1"}) {
    EXPECT_THAT(html, HasSubstr(fmt::format("data-chart=\"{}\"", chart)));
  }
  EXPECT_THAT(html, HasSubstr("<table id=\"table-inference-1\">"));
}

TEST(ReportInference, EnergyPerSampleIsTheQuerysOverItsBatchWhereRunsStoredNone) {
  const auto records = parse_results_csv(inference_csv(false), "infer.csv");
  const auto section = section_of(records);
  const auto& row = section["groups"][1]["rows"][1];
  ASSERT_EQ(row["config"], "batch 8 × 128 tokens");
  EXPECT_DOUBLE_EQ(row["energy_per_sample_j"].get<double>(), 0.08 / 8);
}

TEST(ReportInference, WithoutEnergyOrThroughputThoseChartsAndClausesAreLeftOut) {
  const auto records = parse_results_csv(
      "workload,mode,batch,latency_p50_ms,latency_p90_ms,latency_p99_ms\n"
      "mobilenet,MAXN,1,2,3,4\nmobilenet,MAXN,4,5,6,7\n",
      "infer.csv");
  const auto section = section_of(records);
  ASSERT_EQ(section["groups"].size(), 1u);
  EXPECT_FALSE(section["groups"][0]["has_energy"].get<bool>());
  EXPECT_FALSE(section["groups"][0]["has_throughput"].get<bool>());
  report_html::ChartCanvases canvases;
  const std::string html = inference_html(section, canvases);
  EXPECT_THAT(html, HasSubstr("data-chart=\"inference-latency:0\""));
  EXPECT_THAT(html, Not(HasSubstr("inference-throughput")));
  EXPECT_THAT(html, Not(HasSubstr("inference-energy")));
  EXPECT_THAT(html, HasSubstr("mobilenet (2 configurations): the lowest p99 latency is <strong>4 ms</strong> at batch "
                              "1.</p>"));
}

TEST(ReportInference, TheSequenceLengthIsAlongXWhereTheBatchDoesNotVary) {
  const auto records = parse_results_csv(
      "workload,mode,batch,sequence_length,latency_p99_ms\nbert,MAXN,1,384,5\nbert,MAXN,1,128,3\n", "infer.csv");
  const auto section = section_of(records);
  const auto& group = section["groups"][0];
  EXPECT_EQ(group["x_axis"], "sequence_length");
  EXPECT_EQ(group["x_values"], nlohmann::json({"128", "384"}));
  EXPECT_EQ(group["series"], nlohmann::json({""}));
}

TEST(ReportInference, TrainingAloneHasNoInferencePage) {
  const auto records =
      parse_results_csv("workload,mode,batch,epoch,epoch_time_s,epoch_energy_j\nlenet,MAXN,16,1,1,2\n", "r.csv");
  EXPECT_TRUE(section_of(records)["groups"].empty());
  EXPECT_THAT(render_report(records, {}), Not(HasSubstr("id=\"inference\"")));
}

// The page follows "What to pick" and comes before the Pareto fronts.
TEST(ReportInference, ThePageFollowsWhatToPick) {
  const std::string html = render_report(parse_results_csv(inference_csv(), "infer.csv"), {});
  const auto page = html.find("<section id=\"inference\">");
  ASSERT_NE(page, std::string::npos);
  EXPECT_LT(html.find("<section id=\"recommendation\">"), page);
  EXPECT_LT(page, html.find("<section id=\"pareto\">"));
}

}  // namespace
}  // namespace jetchar::analysis

namespace jetchar::analysis {
namespace {

// A sweep of power modes at one batch (examples/sim-agx-orin-inference-modes.textproto): one group
// with the modes along x, not a chart of one point per mode.
TEST(ReportInference, ModesThatEachRanOneConfigurationShareOneGroup) {
  const auto records = parse_results_csv(
      "workload,mode,batch,sequence_length,latency_p99_ms,throughput_samples_per_s,energy_per_query_j\n"
      "bert,MAXN,1,128,3,400,0.03\nbert,30W,1,128,4,300,0.025\nbert,15W,1,128,6,200,0.02\n",
      "infer.csv");
  const auto section = section_of(records);
  ASSERT_EQ(section["groups"].size(), 1u);
  const auto& group = section["groups"][0];
  EXPECT_EQ(group["label"], "bert | batch 1 × 128 tokens in every power mode");
  EXPECT_EQ(group["x_axis"], "mode");
  EXPECT_EQ(group["x_title"], "power mode");
  EXPECT_EQ(group["x_values"], nlohmann::json({"15W", "30W", "MAXN"}));
  EXPECT_EQ(section["workloads"][0]["least_energy_per_sample"]["config"], "batch 1 × 128 tokens in 15W");
  report_html::ChartCanvases canvases;
  const std::string html = inference_html(section, canvases);
  EXPECT_THAT(html, HasSubstr("bert (3 configurations in 3 power modes): the most throughput is <strong>400 "
                              "samples/s</strong> at batch 1 × 128 tokens in MAXN"));
  EXPECT_THAT(html, HasSubstr("<th>power mode</th>"));
  EXPECT_THAT(html, HasSubstr("data-chart=\"inference-latency:0\""));
  EXPECT_THAT(html, Not(HasSubstr("inference-latency:1")));
}

}  // namespace
}  // namespace jetchar::analysis
