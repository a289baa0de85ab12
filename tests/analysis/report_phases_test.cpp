#include "analysis/report_phases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

using ::testing::HasSubstr;

// electra-small pretrained in two phases three times: in fp32 on one rank (runs r0 and r1, the
// same configuration) and in fp16 on two ranks (r2). Every epoch's time and samples are chosen so
// that each phase's sequences/s is a round number.
std::vector<RunRecord> phased_records() {
  return parse_results_csv(
      "sweep,workload,mode,run_id,precision,nproc_per_node,phases,epoch,phase,epoch_time_s,samples,loss\n"
      "s,electra-small/corpus,MAXN,r0,FP32,1,seq=128;seq=512,0,1,2.0,400,40\n"
      "s,electra-small/corpus,MAXN,r0,FP32,1,seq=128;seq=512,1,1,2.0,400,30\n"
      "s,electra-small/corpus,MAXN,r0,FP32,1,seq=128;seq=512,2,2,4.0,100,25\n"
      "s,electra-small/corpus,MAXN,r1,FP32,1,seq=128;seq=512,0,1,4.0,400,40\n"
      "s,electra-small/corpus,MAXN,r1,FP32,1,seq=128;seq=512,1,2,4.0,200,24\n"
      "s,electra-small/corpus,MAXN,r2,FP16,2,seq=128;seq=512,0,1,1.0,800,41\n"
      "s,electra-small/corpus,MAXN,r2,FP16,2,seq=128;seq=512,1,2,1.0,400,26\n"
      "s,electra-small/corpus,MAXN,r3,FP16,2,,0,,1.0,400,3\n",  // not phased
      "phases.csv");
}

TEST(ReportPhases, ARunWithoutStepLossesShowsItsLossPerEpoch) {
  const auto section = phases_section(phased_records(), {});
  ASSERT_EQ(section["runs"].size(), 3u);  // r3 has no phases
  const auto& r0 = section["runs"][0];
  EXPECT_EQ(r0["label"], "electra-small/corpus | MAXN | FP32 | 1 rank | run r0");
  EXPECT_EQ(r0["loss_over"], "epoch");
  ASSERT_EQ(r0["points"].size(), 3u);
  EXPECT_EQ(r0["points"][2]["x"], 2);
  EXPECT_EQ(r0["points"][2]["phase"], 2);
  EXPECT_DOUBLE_EQ(r0["points"][2]["loss"].get<double>(), 25);
  ASSERT_EQ(r0["phases"].size(), 2u);
  EXPECT_DOUBLE_EQ(r0["phases"][0]["sequences_per_s"].get<double>(), 200);  // 800 sequences in 4 s
  EXPECT_DOUBLE_EQ(r0["phases"][0]["final_loss"].get<double>(), 30);
  EXPECT_TRUE(r0["phases"][0]["steps"].is_null());
  EXPECT_EQ(section["runs"][2]["world_size"], 2);
  EXPECT_EQ(section["runs"][2]["precision"], "FP16");
}

TEST(ReportPhases, StepLossesAreNumberedThroughTheRunAndLongPhasesAveraged) {
  // r0's phase 1 took 2,500 steps, phase 2 three; r1's steps belong to another board.
  PhaseStepLosses one{"s", "r0", "", 1, {}};
  for (int step = 1; step <= 2500; ++step) one.losses.emplace_back(step % 2 == 0 ? 2.0 : 4.0);
  one.losses[4] = std::nullopt;  // a diverged step: left out of its point's mean
  const PhaseStepLosses two{"s", "r0", "", 2, {1.5, std::nullopt, 1.25}};
  const PhaseStepLosses elsewhere{"s", "r1", "another board", 1, {7.0}};
  const auto section = phases_section(phased_records(), {one, two, elsewhere});
  const auto& r0 = section["runs"][0];
  EXPECT_EQ(r0["loss_over"], "step");
  const auto& points = r0["points"];
  // 2,500 steps in points of 3 (834 points), then phase 2's 3 steps one each.
  ASSERT_EQ(points.size(), 834u + 3u);
  EXPECT_LE(834u, kMaxLossPointsPerPhase);
  EXPECT_EQ(points[0]["x"], 3);
  EXPECT_DOUBLE_EQ(points[0]["loss"].get<double>(), (4.0 + 2.0 + 4.0) / 3);
  EXPECT_DOUBLE_EQ(points[1]["loss"].get<double>(), 2.0);  // steps 4 and 6; step 5 diverged
  EXPECT_EQ(points[833]["x"], 2500);                       // the last point holds the one step left
  EXPECT_EQ(points[834]["x"], 2501);
  EXPECT_EQ(points[834]["phase"], 2);
  EXPECT_TRUE(points[835]["loss"].is_null());
  EXPECT_EQ(points[836]["x"], 2503);
  EXPECT_EQ(r0["phases"][0]["steps"], 2500);
  EXPECT_EQ(r0["phases"][1]["steps"], 3);
  EXPECT_EQ(section["runs"][1]["loss_over"], "epoch");  // r1's losses are of another board's run
}

TEST(ReportPhases, ThroughputIsTheMedianPerConfigurationPrecisionWorldSizeAndPhase) {
  const auto section = phases_section(phased_records(), {});
  const auto& rows = section["throughput"];
  ASSERT_EQ(rows.size(), 4u);
  // FP16 sorts before FP32; each configuration's phases in order.
  EXPECT_EQ(rows[0]["label"], "electra-small/corpus | MAXN | FP16 | 2 ranks");
  EXPECT_EQ(rows[0]["phase"], 1);
  EXPECT_DOUBLE_EQ(rows[0]["sequences_per_s"].get<double>(), 800);
  EXPECT_EQ(rows[2]["label"], "electra-small/corpus | MAXN | FP32 | 1 rank");
  EXPECT_EQ(rows[2]["runs"], 2);
  EXPECT_DOUBLE_EQ(rows[2]["sequences_per_s"].get<double>(), 150);   // median of r0's 200 and r1's 100
  EXPECT_DOUBLE_EQ(rows[3]["sequences_per_s"].get<double>(), 37.5);  // median of 25 and 50
}

TEST(ReportPhases, ThePageDrawsEachRunAndTheThroughputOrNothing) {
  report_html::ChartCanvases canvases;
  const auto html = phases_html(phases_section(phased_records(), {}), canvases);
  EXPECT_THAT(html, HasSubstr("2 phases; phase 2 trained 25 sequences/s to a loss of 25."));
  EXPECT_THAT(html, HasSubstr("data-chart=\"phases:2\""));
  EXPECT_THAT(html, HasSubstr("data-chart=\"phases-throughput\""));
  EXPECT_THAT(html, HasSubstr("Loss per epoch, one line per phase"));
  report_html::ChartCanvases none;
  EXPECT_EQ(phases_html(
                phases_section(parse_results_csv("workload,mode,epoch,epoch_time_s\nlenet,MAXN,0,1\n", "x"), {}), none),
            "");
}

}  // namespace
}  // namespace jetchar::analysis
