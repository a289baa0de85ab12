#include "analysis/scaling.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

// LeNet at 1, 2 and 4 ranks with 32 samples per rank (weak), and at 2 ranks with 16 per rank:
// global batch 32, as the one-rank run's (strong). The cold epoch 0 and a failed run stay out;
// the thread count and backend each world resolved do not split the configuration.
constexpr const char* kScalingRuns =
    "workload,mode,batch,nproc_per_node,backend,threads,status,epoch,epoch_time_s,samples,epoch_energy_j,"
    "exposed_communication_s\n"
    "lenet,MAXN,32,,,2,OK,0,9.0,1000,90,\n"
    "lenet,MAXN,32,,,2,OK,1,2.0,1000,20,\n"
    "lenet,MAXN,32,2,gloo,1,OK,0,9.0,2000,90,3\n"
    "lenet,MAXN,32,2,gloo,1,OK,1,2.5,2000,30,0.5\n"
    "lenet,MAXN,32,4,gloo,1,OK,1,4.0,4000,60,2\n"
    "lenet,MAXN,32,4,gloo,1,FAILED,1,1.0,4000,1,0\n"
    "lenet,MAXN,16,2,gloo,1,OK,1,1.6,1000,16,0.4\n";

TEST(Scaling, ThroughputEfficiencyAndEnergyPerSampleAtEachWorldSize) {
  const auto curves = scaling_curves(parse_results_csv(kScalingRuns, "r.csv"));
  ASSERT_EQ(curves.size(), 2u);
  const auto& weak = curves[0];
  EXPECT_EQ(weak.kind, ScalingKind::kWeak);
  EXPECT_EQ(weak.key.axes.at("batch"), "32");
  EXPECT_FALSE(weak.key.axes.contains("threads"));
  EXPECT_FALSE(weak.key.axes.contains("nproc_per_node"));
  ASSERT_EQ(weak.points.size(), 3u);
  EXPECT_EQ(weak.points[0].world_size, 1);
  EXPECT_EQ(weak.points[0].epochs, 1u) << "epoch 0 left out";
  EXPECT_DOUBLE_EQ(weak.points[0].samples_per_s, 500);
  EXPECT_DOUBLE_EQ(weak.points[1].samples_per_s, 800);
  EXPECT_DOUBLE_EQ(weak.points[1].efficiency, 0.8);  // 400 per rank against 500
  EXPECT_DOUBLE_EQ(weak.points[2].efficiency, 0.5) << "the failed run is left out";
  EXPECT_DOUBLE_EQ(*weak.points[0].energy_per_sample_j, 0.02);
  EXPECT_DOUBLE_EQ(*weak.points[2].energy_per_sample_j, 0.015);
  EXPECT_FALSE(weak.points[0].exposed_share) << "one rank communicates nothing";
  EXPECT_DOUBLE_EQ(*weak.points[1].exposed_share, 0.2);
  EXPECT_DOUBLE_EQ(*weak.points[2].exposed_share, 0.5);

  const auto& strong = curves[1];
  EXPECT_EQ(strong.kind, ScalingKind::kStrong);
  EXPECT_EQ(strong.key.axes.at("global_batch"), "32");
  ASSERT_EQ(strong.points.size(), 2u);
  EXPECT_EQ(strong.points[1].world_size, 2);
  EXPECT_DOUBLE_EQ(strong.points[1].samples_per_s, 625);
  EXPECT_DOUBLE_EQ(strong.points[1].efficiency, 0.625);
}

TEST(Scaling, OneWorldSizeIsNoCurveAndABadRankCountNamesTheRun) {
  EXPECT_TRUE(
      scaling_curves(parse_results_csv("workload,batch,epoch,epoch_time_s,samples\nlenet,32,1,2.0,1000\n", "r.csv"))
          .empty());
  try {
    scaling_curves(
        parse_results_csv("workload,nproc_per_node,epoch,epoch_time_s,samples\nlenet,two,1,2.0,1000\n", "r.csv"));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nproc_per_node 'two' is not a rank count; valid: a whole number >= 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace jetchar::analysis
