// A long command shows that it works (issue 47, item 8: a long run printed nothing until it ended).
// Off a terminal (these tests' stderr is a file, as a log, CI, nohup or a pipe is) `train` prints
// a line per epoch and `infer` a line per batch size or server trial on stderr, --json as well
// (stdout stays the JSON alone); `results merge` and `report` print a line per stage on stderr,
// and stdout keeps the one line it printed before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/cli/cli_integration.h"

namespace jetchar::cli {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class ProgressLines : public CliIntegration {};

TEST_F(ProgressLines, TrainPrintsALinePerEpochOnStderrAndItsJsonStaysClean) {
  const std::vector<std::string> train = {
      "train",    "--model", "lenet5",    "--dataset", "synthetic:1x28x28?samples=64&classes=10", "--batch", "16",
      "--epochs", "3",       "--threads", "1"};
  const Outcome text = run(train);
  ASSERT_EQ(text.code, kOk) << text.text();
  for (const char* epoch : {"1/3", "2/3", "3/3"}) {
    EXPECT_THAT(text.err, ContainsRegex(std::string("(^|\n)epoch ") + epoch +
                                        ": 4 minibatches, [0-9]+\\.[0-9]{3} s, loss [0-9]+\\.[0-9]{4}\n"))
        << text.err;
  }
  EXPECT_THAT(text.out, Not(HasSubstr("epoch 1/3"))) << "the progress is stderr's";
  EXPECT_THAT(text.out, HasSubstr("later epochs (median)"));

  std::vector<std::string> with_json = train;
  with_json.emplace_back("--json");
  const Outcome json = run(with_json);
  ASSERT_EQ(json.code, kOk) << json.text();
  EXPECT_THAT(json.err, HasSubstr("epoch 3/3: 4 minibatches, "));
  const auto parsed = nlohmann::json::parse(json.out);  // stdout is the JSON and nothing else
  ASSERT_EQ(parsed.at("epochs").size(), 3u);
  // The line's loss is the epoch's, as the result holds it.
  const double loss = parsed.at("epochs").at(2).at("mean_loss").get<double>();
  EXPECT_THAT(json.err, HasSubstr(fmt::format("epoch 3/3: 4 minibatches, ")));
  EXPECT_THAT(json.err, HasSubstr(fmt::format(", loss {:.4f}\n", loss)));
}

TEST_F(ProgressLines, InferPrintsALinePerBatchSizeAndPerServerTrial) {
  const Outcome batches = run(
      {"infer", "--model", "lenet5", "--batch", "1,4", "--warmup", "1", "--queries", "5", "--threads", "1", "--json"});
  ASSERT_EQ(batches.code, kOk) << batches.text();
  EXPECT_THAT(batches.err, ContainsRegex("(^|\n)batch 1 \\(1/2\\): 5 queries, [0-9.]+ s, p99 [0-9.]+ ms\n"));
  EXPECT_THAT(batches.err, ContainsRegex("\nbatch 4 \\(2/2\\): 5 queries, [0-9.]+ s, p99 [0-9.]+ ms\n"));
  EXPECT_EQ(nlohmann::json::parse(batches.out).size(), 2u);

  const Outcome server =
      run({"infer", "--model", "lenet5", "--scenario", "server", "--latency-bound", "50ms", "--batch", "4", "--warmup",
           "2", "--threads", "1", "--board", "sim:agx-orin-r36", "--root", path("board").string()});
  ASSERT_EQ(server.code, kOk) << server.text();
  EXPECT_THAT(server.err, ContainsRegex("(^|\n)max batch 4 trial 1: [0-9.]+ QPS, [0-9]+ queries, p99 [0-9.]+ ms, "
                                        "(passed|failed)\n"));
  EXPECT_THAT(server.err, ContainsRegex("\nbatch 4 \\(1/1\\): [0-9]+ trials, [0-9.]+ QPS within the bound\n"));
  // As many trial lines as the table lists trials.
  std::size_t lines = 0;
  for (auto at = server.err.find("max batch 4 trial "); at != std::string::npos;
       at = server.err.find("max batch 4 trial ", at + 1))
    ++lines;
  std::size_t rows = 0;
  for (auto at = server.out.find("\n        4 "); at != std::string::npos; at = server.out.find("\n        4 ", at + 1))
    ++rows;
  EXPECT_EQ(lines, rows) << server.out << server.err;
}

TEST_F(ProgressLines, MergeAndReportPrintALinePerStageOnStderr) {
  const fs::path store = store_copy();
  const fs::path merged = path("merged");
  const Outcome merge = run({"results", "merge", merged.string(), store.string()});
  ASSERT_EQ(merge.code, kOk) << merge.text();
  EXPECT_THAT(merge.err,
              ContainsRegex("(^|\n)reading store " + (store / "results.db").string() + ": [1-9][0-9]* runs\n"));
  EXPECT_THAT(merge.err,
              ContainsRegex("\nwriting [1-9][0-9]* new runs into " + (merged / "results.db").string() + "\n"));
  EXPECT_THAT(merge.out, HasSubstr("merged 1 store(s) into "));
  // Into a store that exists: it is read first, and nothing new is written.
  const Outcome again = run({"results", "merge", merged.string(), store.string()});
  ASSERT_EQ(again.code, kOk) << again.text();
  EXPECT_THAT(again.err, ContainsRegex("(^|\n)reading output store " + (merged / "results.db").string() +
                                       ": [1-9][0-9]* runs\nreading store "));
  EXPECT_THAT(again.err, HasSubstr("writing 0 new runs into "));

  const Outcome report = run({"report", merged.string(), "-o", path("report.html").string()});
  ASSERT_EQ(report.code, kOk) << report.text();
  EXPECT_THAT(report.err, ContainsRegex("(^|\n)reading store " + merged.string() + ": [1-9][0-9]* runs\n"));
  EXPECT_THAT(report.err, ContainsRegex("\nrendering the report of [1-9][0-9]* runs\n"));
  EXPECT_THAT(report.out, HasSubstr("wrote " + path("report.html").string()));
}

}  // namespace
}  // namespace jetchar::cli
