#include "analysis/config_point.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/results_file.h"
#include "analysis/variability.h"

namespace jetchar::analysis {
namespace {

// Two devices, two repetitions, three epochs (epoch 0 cold), one failed run.
constexpr const char* kConfigPointRuns =
    "workload,mode,device,repetition,epoch,epoch_time_s,epoch_energy_j,status\n"
    "lenet,MAXN,a,0,0,30,300,OK\n"
    "lenet,MAXN,a,0,1,10,100,OK\n"
    "lenet,MAXN,a,0,2,12,120,OK\n"
    "lenet,MAXN,a,1,0,31,310,OK\n"
    "lenet,MAXN,a,1,1,11,110,OK\n"
    "lenet,MAXN,a,1,2,13,130,OK\n"
    "lenet,MAXN,b,0,1,20,200,OK\n"
    "lenet,MAXN,b,0,2,22,220,OK\n"
    "lenet,MAXN,b,1,1,99,990,FAILED\n"
    "lenet,5W,a,0,1,50,,OK\n";

TEST(ConfigPoint, MediansLeaveOutColdEpochAndFailedRuns) {
  auto points = aggregate(parse_results_csv(kConfigPointRuns, "r.csv"));
  ASSERT_EQ(points.size(), 2u);
  // Sorted by key: mode "5W" < "MAXN".
  EXPECT_EQ(points[0].key.mode.name, "5W");
  EXPECT_FALSE(points[0].energy_j);
  const ConfigPoint& maxn = points[1];
  EXPECT_EQ(maxn.samples, 6u);  // warm epochs 10 12 11 13 20 22
  EXPECT_DOUBLE_EQ(maxn.time_s, 12.5);
  EXPECT_DOUBLE_EQ(*maxn.energy_j, 125);
  EXPECT_DOUBLE_EQ(*maxn.power_w, 10);
  auto with_cold = aggregate(parse_results_csv(kConfigPointRuns, "r.csv"), {.skip_cold_epoch = false});
  EXPECT_EQ(with_cold[1].samples, 8u);
}

// Inference runs (no epochs): three repetitions of two sequence lengths, one failed, and a
// training run of the same model, which stays a configuration of its own.
constexpr const char* kQueries =
    "workload,mode,task,sequence_length,repetition,latency_avg_ms,latency_p50_ms,latency_p99_ms,"
    "throughput_samples_per_s,energy_per_query_j,epoch,epoch_time_s,status\n"
    "bert,MAXN,INFER,128,0,2,1.9,4,500,0.02,,,OK\n"
    "bert,MAXN,INFER,128,1,2,2.1,6,480,0.03,,,OK\n"
    "bert,MAXN,INFER,128,2,2,2.0,5,490,0.025,,,OK\n"
    "bert,MAXN,INFER,384,0,8,7.5,12,125,0.08,,,OK\n"
    "bert,MAXN,INFER,384,1,80,75,120,12,0.8,,,FAILED\n"
    "bert,MAXN,TRAIN,384,0,,,,,,1,30,OK\n";

TEST(ConfigPoint, AnInferenceConfigurationIsItsQueriesLatencyAndEnergyPerQuery) {
  const auto points = aggregate(parse_results_csv(kQueries, "q.csv"));
  ASSERT_EQ(points.size(), 3u);  // 128, 384 (inference), 384 (training)
  const ConfigPoint& short_seq = points[0];
  EXPECT_EQ(short_seq.key.axes.at("sequence_length"), "128");
  ASSERT_TRUE(short_seq.query_latency);
  EXPECT_EQ(*short_seq.query_latency, LatencyPercentile::kP99);
  EXPECT_EQ(short_seq.samples, 3u);
  EXPECT_DOUBLE_EQ(short_seq.time_s, 0.005);  // median p99, in seconds
  EXPECT_DOUBLE_EQ(*short_seq.energy_j, 0.025);
  EXPECT_DOUBLE_EQ(*short_seq.power_w, 12.5);  // J/query over the mean latency
  EXPECT_DOUBLE_EQ(*short_seq.throughput_samples_per_s, 490);
  EXPECT_EQ(time_header(short_seq), "p99_ms");
  EXPECT_EQ(energy_header(short_seq), "J/query");
  EXPECT_DOUBLE_EQ(time_value(short_seq), 5);
  EXPECT_EQ(points[1].samples, 1u);  // the failed repetition is left out
  EXPECT_EQ(points[2].key.axes.at("task"), "TRAIN");
  EXPECT_FALSE(points[2].query_latency);
  EXPECT_DOUBLE_EQ(points[2].time_s, 30);

  const auto by_p50 = aggregate(parse_results_csv(kQueries, "q.csv"), {.latency = LatencyPercentile::kP50});
  EXPECT_DOUBLE_EQ(by_p50[0].time_s, 0.002);
  EXPECT_EQ(time_header(by_p50[0]), "p50_ms");

  const auto spread = variability(parse_results_csv(kQueries, "q.csv"), VariabilityLevel::kRepetitions);
  ASSERT_EQ(spread.size(), 3u);
  EXPECT_TRUE(spread[0].query_latency);
  EXPECT_EQ(spread[0].time_s.n, 3u);
  EXPECT_DOUBLE_EQ(spread[0].time_s.median, 0.005);
  EXPECT_DOUBLE_EQ(spread[0].energy_j->median, 0.025);
  EXPECT_FALSE(spread[2].query_latency);
}

// The same runs judged by throughput and energy per sample (batch 4, so J/sample = J/query / 4),
// and a run without a throughput, which a throughput cannot judge.
constexpr const char* kBatches =
    "workload,mode,task,batch,repetition,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,"
    "energy_per_query_j,energy_per_query_sample_j,status\n"
    "bert,MAXN,INFER,4,0,8,10,500,0.08,0.02,OK\n"
    "bert,MAXN,INFER,4,1,8,12,400,0.12,0.03,OK\n"
    "bert,MAXN,INFER,4,2,8,11,,0.10,0.025,OK\n"
    "bert,MAXN,INFER,1,0,2,3,,0.04,0.04,OK\n";

TEST(ConfigPoint, ThroughputAndEnergyPerSampleAreObjectivesOfTheirOwn) {
  const auto records = parse_results_csv(kBatches, "b.csv");
  const auto per_query = aggregate(records);
  ASSERT_EQ(per_query.size(), 2u);
  EXPECT_EQ(per_query[1].samples, 3u);
  EXPECT_DOUBLE_EQ(*per_query[1].energy_j, 0.10);
  EXPECT_EQ(per_query[1].query_speed, QuerySpeed::kLatency);
  EXPECT_DOUBLE_EQ(*query_latency_s(per_query[1]), 0.011);

  const auto per_sample = aggregate(records, {.speed = QuerySpeed::kThroughput, .energy = QueryEnergy::kPerSample});
  ASSERT_EQ(per_sample.size(), 1u);  // batch 1 has no throughput
  const ConfigPoint& p = per_sample[0];
  EXPECT_EQ(p.key.axes.at("batch"), "4");
  EXPECT_EQ(p.samples, 2u);  // the run without a throughput is left out
  EXPECT_EQ(p.query_speed, QuerySpeed::kThroughput);
  EXPECT_DOUBLE_EQ(p.time_s, 1 / 450.0);  // the time per sample: less is better, as every time_s
  EXPECT_DOUBLE_EQ(time_value(p), 450);
  EXPECT_EQ(time_header(p), "samples/s");
  EXPECT_DOUBLE_EQ(*p.energy_j, 0.025);
  EXPECT_EQ(energy_header(p), "J/sample");
  EXPECT_DOUBLE_EQ(*p.power_w, 12.5);            // J/query over the mean latency, whichever energy is judged
  EXPECT_DOUBLE_EQ(*query_latency_s(p), 0.011);  // the p99 latency stays known
  EXPECT_FALSE(query_latency_s(ConfigPoint{}));  // a training point has none

  const auto spread = variability(records, VariabilityLevel::kRepetitions, {},
                                  {.speed = QuerySpeed::kThroughput, .energy = QueryEnergy::kPerSample});
  ASSERT_EQ(spread.size(), 1u);
  EXPECT_EQ(spread[0].query_speed, QuerySpeed::kThroughput);
  EXPECT_EQ(spread[0].time_s.n, 2u);
  EXPECT_DOUBLE_EQ(spread[0].time_s.median, 450);  // samples/s as measured, not inverted
  EXPECT_DOUBLE_EQ(spread[0].energy_j->median, 0.025);
}

TEST(ConfigPoint, AtTheMeanLatencyPowerTimesTimeIsTheEnergyPerQuery) {
  const auto points = aggregate(parse_results_csv(kBatches, "b.csv"));
  const auto at_mean = at_mean_latency(points);
  ASSERT_EQ(at_mean.size(), 2u);
  for (const ConfigPoint& p : at_mean) {
    EXPECT_EQ(p.query_latency, LatencyPercentile::kAvg);
    EXPECT_NEAR(*p.power_w * p.time_s, *p.energy_j, 1e-12) << p.key.label();
  }
  EXPECT_DOUBLE_EQ(at_mean[1].time_s, 0.008);
  EXPECT_GT(*points[1].power_w * points[1].time_s, 1.3 * *points[1].energy_j);         // at p99 it overstates
  EXPECT_TRUE(at_mean_latency(aggregate(parse_results_csv(kConfigPointRuns, "r.csv"))).empty());  // training points
  EXPECT_TRUE(
      at_mean_latency(aggregate(parse_results_csv(kBatches, "b.csv"), {.energy = QueryEnergy::kPerSample})).empty());
}

TEST(Variability, EpochsRepetitionsDevices) {
  auto records = parse_results_csv(kConfigPointRuns, "r.csv");
  auto epochs = variability(records, VariabilityLevel::kEpochs);
  // lenet 5W (1 run) + lenet MAXN: a/0, a/1, b/0.
  ASSERT_EQ(epochs.size(), 4u);
  EXPECT_EQ(epochs[1].group, "device=a rep=0");
  EXPECT_EQ(epochs[1].time_s.n, 2u);
  EXPECT_DOUBLE_EQ(epochs[1].time_s.mean, 11);
  ASSERT_TRUE(epochs[1].time_median_ci);

  auto reps = variability(records, VariabilityLevel::kRepetitions);
  ASSERT_EQ(reps.size(), 3u);
  EXPECT_EQ(reps[1].group, "device=a");
  EXPECT_EQ(reps[1].time_s.n, 2u);  // run medians 11 and 12
  EXPECT_DOUBLE_EQ(reps[1].time_s.mean, 11.5);
  EXPECT_EQ(reps[2].group, "device=b");
  EXPECT_EQ(reps[2].time_s.n, 1u);
  EXPECT_FALSE(reps[2].time_s.stddev);

  auto devices = variability(records, VariabilityLevel::kDevices);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].time_s.n, 2u);  // device medians 11.5 and 21
  EXPECT_DOUBLE_EQ(devices[1].time_s.mean, 16.25);
  EXPECT_NEAR(*devices[1].time_s.cv, std::sqrt(2 * 4.75 * 4.75) / 16.25, 1e-12);
  ASSERT_TRUE(devices[1].energy_j);
  EXPECT_DOUBLE_EQ(devices[1].energy_j->mean, 162.5);
}

}  // namespace
}  // namespace jetchar::analysis
