#include "analysis/report_batch.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/report.h"
#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// LeNet-5 at batch 16, 64 and 256 in MAXN (batch 16 with a cold epoch 0, left out), at 16 and 64 in
// 15W, and at 16 only in 5W (no batch-size axis there). Every epoch has 1000 samples.
std::vector<RunRecord> batch_records() {
  return parse_results_csv(
      "workload,mode,batch,epoch,epoch_time_s,samples,stall_s,epoch_energy_j\n"
      "lenet,MAXN,16,0,3.0,1000,1.0,30\nlenet,MAXN,16,1,2.0,1000,0.5,20\nlenet,MAXN,16,2,2.2,1000,0.5,22\n"
      "lenet,MAXN,64,1,1.0,1000,0.2,12\nlenet,MAXN,64,2,1.0,1000,0.2,12\n"
      "lenet,MAXN,256,1,0.8,1000,0.32,14\n"
      "lenet,15W,16,1,4.0,1000,0.5,16\nlenet,15W,64,1,2.5,1000,0.4,10\n"
      "lenet,5W,16,1,8.0,1000,0.5,12\n",
      "batch.csv");
}

TEST(ReportBatch, PerSampleMediansOverWarmEpochsPerBatchInNumericOrder) {
  const auto section = batch_section(batch_records());
  ASSERT_EQ(section.size(), 2u);  // 5W measured one batch size
  EXPECT_EQ(section[0]["label"], "lenet | 15W");
  const auto& maxn = section[1];
  EXPECT_EQ(maxn["label"], "lenet | MAXN");
  ASSERT_EQ(maxn["rows"].size(), 3u);
  EXPECT_EQ(maxn["rows"][0]["batch"], "16");
  EXPECT_EQ(maxn["rows"][1]["batch"], "64");
  EXPECT_EQ(maxn["rows"][2]["batch"], "256");
  const auto& b16 = maxn["rows"][0];
  EXPECT_DOUBLE_EQ(b16["time_per_sample_ms"].get<double>(), 2.1);  // epochs 1 and 2; epoch 0 was cold
  EXPECT_DOUBLE_EQ(b16["stall_per_sample_ms"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(b16["rest_per_sample_ms"].get<double>(), 1.6);
  EXPECT_DOUBLE_EQ(b16["energy_per_sample_mj"].get<double>(), 21);
  EXPECT_NEAR(b16["samples_per_s"].get<double>(), 1000 / 2.1, 1e-9);
  EXPECT_EQ(b16["epochs"], 2);
  EXPECT_TRUE(maxn["has_stall"].get<bool>());
  EXPECT_TRUE(maxn["has_energy"].get<bool>());
}

TEST(ReportBatch, TheSentenceNamesTheBatchWithTheLeastTimeAndTheOneWithTheLeastEnergyPerSample) {
  report_html::ChartCanvases canvases;
  const std::string html = batch_html(batch_section(batch_records()), canvases);
  EXPECT_THAT(html,
              HasSubstr("<p class=\"answer\" data-answer=\"batch\">lenet | MAXN: batch <strong>256</strong> takes "
                        "the least time per sample, 0.8 ms (2.6× less than batch 16), 40 % of it fetch stall; "
                        "batch <strong>64</strong> the least energy per sample, 12 mJ.</p>"));
  EXPECT_THAT(html, HasSubstr("lenet | 15W: batch <strong>64</strong> takes the least time per sample, 2.5 ms (1.6× "
                              "less than batch 16), 16 % of it fetch stall; it also takes the least energy per sample, "
                              "10 mJ.</p>"));
  for (const char* chart : {"batch-time:0", "batch-energy:0", "batch-time:1", "batch-energy:1"})
    EXPECT_THAT(html, HasSubstr(fmt::format("data-chart=\"{}\"", chart)));
  EXPECT_THAT(html, HasSubstr("<table id=\"table-batch-1\">"));
}

TEST(ReportBatch, EpochsWithoutTheirSamplesCannotBePutPerSample) {
  const auto records =
      parse_results_csv("workload,mode,batch,epoch,epoch_time_s\nlenet,MAXN,16,1,2\nlenet,MAXN,64,1,1\n", "batch.csv");
  EXPECT_TRUE(batch_section(records).empty());
  EXPECT_THAT(render_report(records, {}), Not(HasSubstr("id=\"batch\"")));
}

TEST(ReportBatch, WithoutStallOrEnergyTheTimeChartIsTheWholeTime) {
  const auto records = parse_results_csv(
      "workload,mode,batch,epoch,epoch_time_s,samples\nlenet,MAXN,16,1,2,1000\nlenet,MAXN,64,1,1,1000\n", "batch.csv");
  const auto section = batch_section(records);
  ASSERT_EQ(section.size(), 1u);
  EXPECT_FALSE(section[0]["has_stall"].get<bool>());
  EXPECT_DOUBLE_EQ(section[0]["rows"][1]["rest_per_sample_ms"].get<double>(), 1);
  report_html::ChartCanvases canvases;
  const std::string html = batch_html(section, canvases);
  EXPECT_THAT(html, Not(HasSubstr("batch-energy")));
  EXPECT_THAT(html, HasSubstr("lenet | MAXN: batch <strong>64</strong> takes the least time per sample, 1 ms (2× less "
                              "than batch 16).</p>"));
}

// The page comes after the Pareto fronts.
TEST(ReportBatch, ThePageFollowsTheParetoFronts) {
  const std::string html = render_report(batch_records(), {});
  const auto page = html.find("<section id=\"batch\"><h2>Training: time, fetch stall and energy per sample");
  ASSERT_NE(page, std::string::npos);
  EXPECT_LT(html.find("<section id=\"pareto\">"), page);
}

}  // namespace
}  // namespace jetchar::analysis
