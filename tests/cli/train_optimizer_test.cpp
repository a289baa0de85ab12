// `train --optimizer` and `--weight-decay` through the real jetchar: the settings a run trained
// with are in --json and in the table's settings line; a name that is no optimizer and a decay
// outside [0, 1] are bad input (exit 3) naming the option, the value and what is valid.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;

using jetchar::testing::read_text;

std::vector<std::string> train(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "train",    "--model", "lenet5",    "--dataset", "synthetic:1x28x28?samples=16&classes=10", "--batch", "8",
      "--epochs", "1",       "--threads", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(TrainOptimizerTest, TheOptimizerAndItsWeightDecayAreWhatRan) {
  testing::TempDir dir;
  const auto out = dir.path() / "train.json", err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(train({"--optimizer", "adamw", "--weight-decay", "0.1", "--json"}), out, err), kOk)
      << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(json["settings"]["optimizer"], "adamw");
  EXPECT_EQ(json["settings"]["weight_decay"], 0.1);
  EXPECT_EQ(json["settings"]["learning_rate"], 5e-5);  // AdamW's default rate

  const auto table = dir.path() / "train.txt";
  ASSERT_EQ(testing::run_jetchar(train({}), table, err), kOk) << read_text(err);
  EXPECT_THAT(read_text(table), HasSubstr("optimizer sgd lr 0.01 weight decay 0  seed 0"));  // LeNet-5's defaults
}

TEST(TrainOptimizerTest, AnUnknownOptimizerOrADecayOutOfRangeIsBadInput) {
  testing::TempDir dir;
  const auto err = dir.path() / "bad.err";
  EXPECT_EQ(testing::run_jetchar(train({"--optimizer", "adam"}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("--optimizer"));
  EXPECT_THAT(read_text(err), HasSubstr("adam"));
  EXPECT_THAT(read_text(err), HasSubstr("sgd"));
  EXPECT_EQ(testing::run_jetchar(train({"--weight-decay", "-0.5"}), "/dev/null", err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("--weight-decay"));
  EXPECT_THAT(read_text(err), HasSubstr("-0.5"));
}

}  // namespace
}  // namespace jetchar::cli
