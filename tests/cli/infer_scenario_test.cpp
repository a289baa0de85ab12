// `infer --scenario` through the real jetchar: the server scenario on a simulated AGX Orin finds
// the highest Poisson rate whose p99 meets the bound, which follows the board's modelled query
// time (not this host's), and prints and records its trials; single-stream refuses a batch of
// two naming --batch; --latency-bound goes with the server only and takes LoadGen's units.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;
using nlohmann::json;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

class InferScenarioTest : public ::testing::Test {
 protected:
  std::vector<std::string> server_args(const std::vector<std::string>& extra) const {
    std::vector<std::string> all = {"infer",
                                    "--model",
                                    "lenet5",
                                    "--scenario",
                                    "server",
                                    "--warmup",
                                    "2",
                                    "--threads",
                                    "1",
                                    "--board",
                                    "sim:agx-orin-r36",
                                    "--root",
                                    (dir_.path() / "board").string()};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  testing::TempDir dir_;
};

TEST_F(InferScenarioTest, TheServersHighestRateFollowsTheModelledBoardAndMeetsTheBound) {
  const auto out = dir_.path() / "server.json", err = dir_.path() / "server.err";
  ASSERT_EQ(testing::run_jetchar(server_args({"--latency-bound", "50ms", "--json"}), out, err), kOk) << read_text(err);
  const auto run = json::parse(read_text(out));
  EXPECT_EQ(run["status"], "OK");
  EXPECT_EQ(run["scenario"], "server");
  const auto& server = run["server"];
  ASSERT_TRUE(server["max_qps"].is_number()) << server.dump(1);
  const double max_qps = server["max_qps"];
  EXPECT_DOUBLE_EQ(server["latency_bound_ms"].get<double>(), 50);
  EXPECT_LE(server["p99_ms"].get<double>(), 50);
  EXPECT_EQ(run["headline"]["figure"], "max_qps");
  EXPECT_EQ(run["headline"]["value"], max_qps);
  ASSERT_GE(server["trials"].size(), 2u);
  EXPECT_LE(server["trials"].size(), 16u);
  // The search stopped at a rate that failed above it, or at the capacity (nothing above is tried).
  bool failed_above = false;
  for (const auto& trial : server["trials"]) {
    EXPECT_LE(trial["rate_qps"].get<double>(), server["capacity_qps"].get<double>());
    failed_above = failed_above || (!trial["passed"].get<bool>() && trial["rate_qps"].get<double>() > max_qps);
  }
  EXPECT_TRUE(failed_above || max_qps == server["capacity_qps"].get<double>()) << server.dump(1);

  // The record a sweep would store: the same search, the highest passing trial's latencies.
  const auto& record = run["record"];
  EXPECT_EQ(record["resolved"]["workload"]["inference"]["scenario"], "SERVER");
  EXPECT_DOUBLE_EQ(record["resolved"]["workload"]["inference"]["latency_bound_ms"].get<double>(), 50);
  ASSERT_TRUE(record.contains("server")) << record.dump(1);
  EXPECT_DOUBLE_EQ(record["server"]["max_qps"].get<double>(), max_qps);
  EXPECT_EQ(record["server"]["trials"].size(), server["trials"].size());
  // The same p99, to the nanosecond latencies are measured in: on a host slower than the board, the
  // record divides it by the slow-motion factor as a fraction, the command's own figure from whole
  // nanoseconds (experiments/dilated_time.cpp).
  EXPECT_NEAR(record["latency"]["p99_ms"].get<double>(), server["p99_ms"].get<double>(), 1e-6);
  ASSERT_TRUE(record["latency"].contains("energy_per_query_j")) << "the simulated board's modelled rails";
  EXPECT_DOUBLE_EQ(record["latency"]["energy_per_query_j"].get<double>(),
                   record["latency"]["energy_per_sample_j"].get<double>())
      << "a server's query is one sample";

  // The modelled board's time of a one-sample query, not this host's: one server answers at most
  // 1 / that many queries a second (a sleep's overshoot makes it a little fewer), and with a bound
  // of many query times it sustains well over half of that.
  const double query_s = record["modelled_time"]["minibatch_compute_s"];
  ASSERT_GT(query_s, 0);
  ASSERT_LT(query_s * 1e3, 50.0 / 10) << "the bound is many modelled query times";
  EXPECT_LE(max_qps, 1.05 / query_s) << "modelled query " << query_s * 1e3 << " ms";
  EXPECT_GE(max_qps, 0.5 / query_s) << "modelled query " << query_s * 1e3 << " ms";
}

TEST_F(InferScenarioTest, TheServersTableListsItsTrialsAndTheHighestRate) {
  const auto out = dir_.path() / "server.txt", err = dir_.path() / "server.err";
  ASSERT_EQ(
      testing::run_jetchar(server_args({"--batch", "4", "--latency-bound", "0.05s", "--queries", "60"}), out, err), kOk)
      << read_text(err);
  const std::string text = read_text(out);
  EXPECT_THAT(text, ContainsRegex("^model lenet5  scenario server  max batch 4  inputs synthetic"));
  EXPECT_THAT(text, ContainsRegex("\n +4 +1 +[0-9.]+ +60 +[0-9.]+ +[0-9.]+ +(yes|no)\n"));
  EXPECT_THAT(text, ContainsRegex("\nserver: [0-9.]+ QPS with p99 [0-9.]+ ms within 50 ms \\(max batch 4; the highest "
                                  "passing rate of [0-9]+ trials, to within 5 %; capacity [0-9.]+ QPS\\)  [0-9.]+ "
                                  "J/query\n"));
  EXPECT_THAT(text, HasSubstr("a query is one sample, J over the highest passing trial's queries"));
}

TEST_F(InferScenarioTest, SingleStreamIsOneSampleAQueryAndTheBoundIsTheServers) {
  const auto out = dir_.path() / "out.txt", err = dir_.path() / "err.txt";
  EXPECT_EQ(
      testing::run_jetchar({"infer", "--model", "lenet5", "--scenario", "single-stream", "--batch", "2"}, out, err),
      kUsage);
  EXPECT_THAT(read_text(err),
              HasSubstr("--batch 2 is not valid with --scenario single-stream (queries of one sample); valid: 1"));
  EXPECT_EQ(testing::run_jetchar({"infer", "--model", "lenet5", "--latency-bound", "5ms"}, out, err), kUsage);
  EXPECT_THAT(read_text(err), HasSubstr("--latency-bound goes with --scenario server"));
  EXPECT_EQ(testing::run_jetchar({"infer", "--model", "lenet5", "--scenario", "server", "--latency-bound", "5 min"},
                                 out, err),
            kUsage);
  EXPECT_THAT(read_text(err), HasSubstr("--latency-bound '5 min' is not a latency"));
  ASSERT_EQ(
      testing::run_jetchar(
          {"infer", "--model", "lenet5", "--scenario", "single-stream", "--warmup", "1", "--queries", "20"}, out, err),
      kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out), ContainsRegex("\nsingle-stream: p90 latency [0-9.]+ ms over 20 back-to-back queries of "
                                            "one sample\n"));
}

}  // namespace
}  // namespace jetchar::cli
