// `jetchar analyze stats|pareto|choose` on inference runs through the real jetchar, judged by the
// objective the user names (analysis/query_objectives.h): a query's latency or the throughput
// (--speed), energy per query or per sample (--energy-per). Across batch sizes they disagree, which
// is what the options are for: batch 1 spends the least per query, batch 8 the least per sample.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class AnalyzeQueryObjectivesTest : public ::testing::Test {
 protected:
  // One model at batch 1, 2, 4 and 8, two repetitions each: latency, throughput and J/query grow
  // with the batch, J/sample falls. Batch 2 is dominated: batch 1 answers sooner and cheaper per
  // query, batch 4 serves more samples/s for less per sample.
  void SetUp() override {
    runs_ = dir_.write("queries.csv",
                       "workload,mode,task,batch,repetition,latency_avg_ms,latency_p99_ms,throughput_samples_per_s,"
                       "energy_per_query_j,energy_per_query_sample_j,status\n"
                       "bert,MAXN,INFER,1,0,3.0,3.5,330,0.038,0.038,OK\n"
                       "bert,MAXN,INFER,1,1,3.1,3.6,320,0.039,0.039,OK\n"
                       "bert,MAXN,INFER,2,0,3.6,4.4,560,0.050,0.025,OK\n"
                       "bert,MAXN,INFER,2,1,3.6,4.2,550,0.052,0.026,OK\n"
                       "bert,MAXN,INFER,4,0,3.3,3.8,1190,0.042,0.0105,OK\n"
                       "bert,MAXN,INFER,4,1,3.4,3.9,1180,0.043,0.01075,OK\n"
                       "bert,MAXN,INFER,8,0,4.0,4.2,2010,0.051,0.006375,OK\n"
                       "bert,MAXN,INFER,8,1,4.0,4.1,2000,0.050,0.00625,OK\n")
                .string();
  }
  int run(const std::vector<std::string>& args) {
    return testing::run_jetchar(args, dir_.path() / "out.txt", dir_.path() / "err.txt");
  }
  std::string out() const { return read_text(dir_.path() / "out.txt"); }
  std::string err() const { return read_text(dir_.path() / "err.txt"); }

  testing::TempDir dir_;
  std::string runs_;
};

TEST_F(AnalyzeQueryObjectivesTest, ParetoWeighsLatencyOrThroughputAgainstJoulesPerQueryOrPerSample) {
  ASSERT_EQ(run({"analyze", "pareto", runs_}), 0) << err();
  // By p99 and J/query, batch 1 (3.55 ms, 0.0385 J) answers sooner and spends less than every
  // larger batch: it alone is the front.
  EXPECT_THAT(out(), HasSubstr("bert inference: 1 of 4 configurations on the latency-energy Pareto front"));
  EXPECT_THAT(out(), ContainsRegex("\n  power mode +axes +p99_ms +J/query +power_w\n"));
  EXPECT_THAT(out(), ContainsRegex("\n  MAXN +batch=1 +3\\.5500 +0\\.0385 "));

  ASSERT_EQ(run({"analyze", "pareto", runs_, "--speed", "throughput", "--energy-per", "sample"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("inference: throughput (samples/s, after warm-up) and energy per sample (J/sample"));
  // Batch 8 serves the most samples/s for the least per sample: it alone is the front.
  EXPECT_THAT(out(), HasSubstr("bert inference: 1 of 4 configurations on the throughput-energy Pareto front"));
  EXPECT_THAT(out(), ContainsRegex("\n  power mode +axes +samples/s +J/sample +power_w\n"));
  EXPECT_THAT(out(), ContainsRegex("\n  MAXN +batch=8 +2005\\.0000 +0\\.0063 "));

  // Throughput against J/query: batch 1 spends least per query, 4 and 8 serve more samples/s.
  ASSERT_EQ(run({"analyze", "pareto", runs_, "--speed", "throughput"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("bert inference: 3 of 4 configurations on the throughput-energy Pareto front"));
  EXPECT_THAT(out(), ContainsRegex("\n  MAXN +batch=8 +2005\\.0000 +0\\.0505 "));
  EXPECT_THAT(out(), ContainsRegex("\n  MAXN +batch=4 +1185\\.0000 +0\\.0425 "));
  EXPECT_THAT(out(), ContainsRegex("\n  MAXN +batch=1 +325\\.0000 +0\\.0385 "));
}

TEST_F(AnalyzeQueryObjectivesTest, ChooseTakesTheLeastEnergyPerQueryOrPerSampleUnderALatencyOrThroughputBound) {
  ASSERT_EQ(run({"analyze", "choose", runs_, "--max-latency", "5ms"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("least energy per query with query latency <= 5 ms\n"));
  EXPECT_THAT(out(), ContainsRegex("bert inference: [^\n]*batch=1  p99 latency 3\\.55 ms  energy 0\\.0385 J/query  "));

  ASSERT_EQ(run({"analyze", "choose", runs_, "--max-latency", "5ms", "--energy-per", "sample"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("least energy per sample with query latency <= 5 ms\n"));
  EXPECT_THAT(out(),
              ContainsRegex("bert inference: [^\n]*batch=8  p99 latency 4\\.15 ms  energy 0\\.00631[23] J/sample  "
                            "power [0-9.]+ W  2005\\.0 samples/s"));
  // A tighter bound leaves batch 8 out: batch 4 spends the least per sample within 4 ms.
  ASSERT_EQ(run({"analyze", "choose", runs_, "--max-latency", "4ms", "--energy-per", "sample"}), 0) << err();
  EXPECT_THAT(out(), ContainsRegex("batch=4  p99 latency 3\\.85 ms  energy 0\\.0106[23] J/sample"));

  // A throughput floor alone: the least J/query among those that serve 1000 samples/s.
  ASSERT_EQ(run({"analyze", "choose", runs_, "--min-throughput", "1000"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("least energy per query with >= 1000 samples/s\n"));
  EXPECT_THAT(out(), ContainsRegex("batch=4  p99 latency 3\\.85 ms  energy 0\\.0425 J/query"));
  ASSERT_EQ(run({"analyze", "choose", runs_, "--min-throughput", "3000"}), kFailure) << err();
  EXPECT_THAT(err(), HasSubstr("1 of 1 configuration(s) have no measured mode that meets the budget"));

  // Under a power budget "least time" is the latency, or with --speed throughput the most samples/s.
  ASSERT_EQ(run({"analyze", "choose", runs_, "--max-power", "20"}), 0) << err();
  EXPECT_THAT(out(), ContainsRegex("batch=1  p99 latency"));
  ASSERT_EQ(run({"analyze", "choose", runs_, "--max-power", "20", "--speed", "throughput"}), 0) << err();
  EXPECT_THAT(out(), ContainsRegex("batch=8  p99 latency"));
}

TEST_F(AnalyzeQueryObjectivesTest, StatsSummariseTheThroughputAndEnergyPerSample) {
  ASSERT_EQ(run({"analyze", "stats", runs_, "--level", "devices", "--speed", "throughput", "--energy-per", "sample"}),
            0)
      << err();
  EXPECT_THAT(out(), HasSubstr("across devices (inference: throughput, samples/s; energy per sample, J; 95% bootstrap "
                               "CI of the median throughput)"));
  EXPECT_THAT(out(), ContainsRegex("\nbert \\| [^\n]*batch=8 +1 +2005 +2005 [^\n]* 0\\.00631[23] "));
  ASSERT_EQ(run({"analyze", "stats", runs_, "--level", "devices"}), 0) << err();
  EXPECT_THAT(out(), HasSubstr("(inference: p99 latency of a query, ms; energy per query, J;"));
  EXPECT_THAT(out(), ContainsRegex("\nbert \\| [^\n]*batch=8 +1 +4\\.15 +4\\.15 [^\n]* 0\\.0505 "));
}

TEST_F(AnalyzeQueryObjectivesTest, BadObjectivesAreNamed) {
  EXPECT_EQ(run({"analyze", "pareto", runs_, "--speed", "fast"}), kBadInput);
  EXPECT_THAT(err(), HasSubstr("--speed"));
  EXPECT_THAT(err(), HasSubstr("fast"));
  EXPECT_EQ(run({"analyze", "choose", runs_, "--max-latency", "5ms", "--energy-per", "batch"}), kBadInput);
  EXPECT_THAT(err(), HasSubstr("--energy-per"));
  EXPECT_THAT(err(), HasSubstr("batch"));
  // A throughput floor is a budget of its own or goes with a latency bound, not with another budget.
  EXPECT_EQ(run({"analyze", "choose", runs_, "--min-throughput", "100", "--max-power", "20"}), kUsage);
  EXPECT_THAT(err(), HasSubstr("--min-throughput"));
  EXPECT_EQ(run({"analyze", "choose", runs_, "--energy-per", "sample"}), kUsage);
  EXPECT_THAT(err(), HasSubstr("give exactly one of --max-time, --max-latency, --min-throughput"));
  // A training store has no inference configuration for a throughput floor.
  const auto training = dir_.write("train.csv", "workload,epoch,epoch_time_s,epoch_energy_j\nlenet,1,10,100\n");
  EXPECT_EQ(run({"analyze", "choose", training.string(), "--min-throughput", "100"}), kBadInput);
  EXPECT_THAT(err(), HasSubstr("no inference configuration (runs with query latencies) for --min-throughput"));
  EXPECT_THAT(out(), Not(HasSubstr("least energy")));
}

}  // namespace
}  // namespace jetchar::cli
