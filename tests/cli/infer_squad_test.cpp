// `infer --dataset` through the real jetchar: bert-tiny-qa answers the windows of a SQuAD dev file
// the test writes, for a list of batch sizes, on a simulated board whose rails give J/query: one
// JSON object per batch size (an array), each naming the inputs and its energy per query, and one
// table row per batch size; a model the windows do not fit is bad input (exit 3) naming both.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/squad_sample.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using nlohmann::json;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

using jetchar::testing::read_text;

class InferSquadTest : public ::testing::Test {
 protected:
  InferSquadTest() {
    dir_.write("vocab.txt",
               "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nred\nfox\njumps\nover\nlazy\ndog\nnear\nold\nriver\nbank\nwhat\n"
               "who\nsleeps\n?\n.\n");
    dir_.write("dev-v1.1.json", jetchar::testing::squad_sample_json());
  }
  std::vector<std::string> args(const std::string& model, const std::vector<std::string>& extra) const {
    std::vector<std::string> all = {
        "infer",
        "--model",
        model,
        "--dataset",
        "squad:" + dir_.path().string() + "?stride=4&max_query_length=4&vocab=" + (dir_.path() / "vocab.txt").string(),
        "--seq-len",
        "16",
        "--warmup",
        "1",
        "--queries",
        "20",
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

TEST_F(InferSquadTest, EachBatchSizeQueriesTheDevWindowsWithItsEnergyPerQuery) {
  const auto out = dir_.path() / "infer.json", err = dir_.path() / "infer.err";
  ASSERT_EQ(testing::run_jetchar(args("bert-tiny-qa", {"--batch", "1,3", "--json"}), out, err), kOk) << read_text(err);
  const auto runs = json::parse(read_text(out));
  ASSERT_TRUE(runs.is_array()) << runs.dump();
  ASSERT_EQ(runs.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& run = runs[i];
    const int batch = i == 0 ? 1 : 3;
    EXPECT_EQ(run["status"], "OK");
    EXPECT_EQ(run["settings"]["batch_size"], batch);
    EXPECT_EQ(run["settings"]["sequence_length"], 16);
    EXPECT_EQ(run["settings"]["inputs"], "dev-v1.1.json");
    EXPECT_EQ(run["settings"]["input_samples"], 4);  // two windows per question
    EXPECT_EQ(run["latency"]["count"], 20);
    ASSERT_TRUE(run["energy"].is_object()) << run.dump();  // the simulated board's modelled rails
    EXPECT_EQ(run["energy"]["queries"], 20);
    EXPECT_GT(run["energy"]["per_query_j"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(run["energy"]["per_sample_j"].get<double>(), run["energy"]["per_query_j"].get<double>() / batch);
    EXPECT_THAT(run["board"].get<std::string>(), HasSubstr("power figures are modelled"));
  }

  const auto table = dir_.path() / "infer.txt";
  ASSERT_EQ(testing::run_jetchar(args("bert-tiny-qa", {"--batch", "1,3"}), table, err), kOk) << read_text(err);
  const auto text = read_text(table);
  EXPECT_THAT(text, ContainsRegex("model bert-tiny-qa  batch 1,3  seq 16  inputs dev-v1.1.json \\(4 samples\\)"));
  EXPECT_THAT(text, ContainsRegex("\n +1 +20 +[0-9.]+ .* [0-9.]+\n"));
  EXPECT_THAT(text, ContainsRegex("\n +3 +20 +[0-9.]+ .* [0-9.]+\n"));
  EXPECT_THAT(text, HasSubstr("a query is one batch, J over the timed queries (warm-up excluded)"));
}

TEST_F(InferSquadTest, AModelTheWindowsDoNotFitIsBadInput) {
  const auto err = dir_.path() / "ner.err";
  EXPECT_EQ(testing::run_jetchar(args("bert-tiny-ner", {}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("model bert-tiny-ner"));
  EXPECT_THAT(read_text(err), HasSubstr("does not fit data set dev-v1.1.json"));
}

}  // namespace
}  // namespace jetchar::cli
