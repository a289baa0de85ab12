// `train --eval` through the real jetchar: a question-answering BERT trains on a SQuAD file the
// test writes and is scored after every epoch on the dev file beside it (exact match and F1 in
// --json, the split named), --target-f1 reports the first epoch at the target; a missing dev file
// and a target without --eval are bad input (exit 3) naming what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
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
using ::testing::HasSubstr;

using jetchar::testing::read_text;

class TrainEvalTest : public ::testing::Test {
 protected:
  TrainEvalTest() {
    dir_.write("vocab.txt",
               "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nred\nfox\njumps\nover\nlazy\ndog\nnear\nold\nriver\nbank\nwhat\n"
               "who\nsleeps\n?\n.\n");
    train_ = dir_.write("train-v1.1.json", jetchar::testing::squad_sample_json());
  }
  std::vector<std::string> args(const std::vector<std::string>& extra,
                                const std::string& model = "bert-tiny-qa") const {
    std::vector<std::string> all = {"train",
                                    "--model",
                                    model,
                                    "--dataset",
                                    "squad:" + train_.string() + "?vocab=" + (dir_.path() / "vocab.txt").string() +
                                        "&max_length=16&stride=4&max_query_length=4",
                                    "--batch",
                                    "4",
                                    "--threads",
                                    "1"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  testing::TempDir dir_;
  std::filesystem::path train_;
};

// ELECTRA fine-tunes on SQuAD as BERT does (ElectraForQuestionAnswering's head), scored alike.
TEST_F(TrainEvalTest, ElectraQuestionAnsweringIsScoredOnTheDevFile) {
  dir_.write("dev-v1.1.json", jetchar::testing::squad_sample_json());
  const auto out = dir_.path() / "train.json", err = dir_.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(args({"--epochs", "1", "--eval", "--json"}, "electra-small-qa"), out, err), kOk)
      << read_text(err);
  const auto result = json::parse(read_text(out));
  EXPECT_EQ(result["model"], "electra-small-qa");
  ASSERT_EQ(result["epochs"].size(), 1u);
  const auto& epoch = result["epochs"][0];
  ASSERT_TRUE(epoch["eval_squad_f1"].is_number()) << epoch.dump();
  EXPECT_GE(epoch["eval_squad_f1"].get<double>(), epoch["eval_squad_exact_match"].get<double>());
  EXPECT_EQ(result["record"]["epochs"][0]["eval_squad_f1"], epoch["eval_squad_f1"]);
}

TEST_F(TrainEvalTest, SquadIsScoredOnTheDevFileAfterEveryEpoch) {
  dir_.write("dev-v1.1.json", jetchar::testing::squad_sample_json());
  const auto out = dir_.path() / "train.json", err = dir_.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(args({"--epochs", "2", "--eval", "--target-f1", "0.5", "--json"}), out, err), kOk)
      << read_text(err);
  const auto result = json::parse(read_text(out));
  EXPECT_EQ(result["settings"]["eval"], "validation: " + (dir_.path() / "dev-v1.1.json").string());
  ASSERT_EQ(result["epochs"].size(), 2u);
  for (const auto& epoch : result["epochs"]) {
    ASSERT_TRUE(epoch["eval_squad_f1"].is_number()) << epoch.dump();
    ASSERT_TRUE(epoch["eval_squad_exact_match"].is_number()) << epoch.dump();
    EXPECT_GE(epoch["eval_squad_f1"].get<double>(), epoch["eval_squad_exact_match"].get<double>());
    EXPECT_LE(epoch["eval_squad_f1"].get<double>(), 1.0);
    EXPECT_TRUE(epoch["eval_entity_f1"].is_null());
  }
  EXPECT_EQ(result["target"]["target_f1"], 0.5);
  // Reached or not (random weights), the best F1 is the epochs' best.
  EXPECT_EQ(result["target"]["best_f1"], std::max(result["epochs"][0]["eval_squad_f1"].get<double>(),
                                                  result["epochs"][1]["eval_squad_f1"].get<double>()));

  // The table names the split and gives EM and F1 as percentages.
  const auto table = dir_.path() / "train.txt";
  ASSERT_EQ(testing::run_jetchar(args({"--epochs", "1", "--eval"}), table, err), kOk) << read_text(err);
  EXPECT_THAT(
      read_text(table),
      HasSubstr("epoch 0 SQuAD on the validation: " + (dir_.path() / "dev-v1.1.json").string() + ": exact match "));
}

TEST_F(TrainEvalTest, AMissingDevFileAndATargetWithoutEvalAreBadInput) {
  const auto err = dir_.path() / "missing.err";
  EXPECT_EQ(testing::run_jetchar(args({"--epochs", "1", "--eval"}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr((dir_.path() / "dev-v1.1.json").string()));
  EXPECT_THAT(read_text(err), HasSubstr("dev=FILE"));
  EXPECT_EQ(testing::run_jetchar(args({"--epochs", "1", "--target-f1", "0.9"}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("--target-f1 0.9 needs --eval"));
}

}  // namespace
}  // namespace jetchar::cli
