// `train` and `infer` run on the route a sweep's runs take (experiments/direct_run.h), checked
// through the real jetchar: on a board with rails (the simulated one) every epoch has its energy,
// and --json carries the record a sweep would store, with the resolved settings; problems a sweep
// finds before it starts are bad input naming the spec field.
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
using ::testing::HasSubstr;

const std::vector<std::string> kTrain = {
    "train",    "--model", "lenet5",    "--dataset", "synthetic:1x28x28?samples=32&classes=10", "--batch", "8",
    "--epochs", "2",       "--threads", "1"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(TrainRouteTest, OnABoardWithRailsEveryEpochHasItsEnergyAndTheRecordItsResolvedSettings) {
  testing::TempDir dir;
  const auto out = dir.path() / "train.json", err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(with(kTrain, {"--board", "sim:agx-orin-r36", "--json"}), out, err), kOk)
      << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_THAT(json["board"].get<std::string>(), HasSubstr("power figures are modelled"));
  const auto& record = json["record"];
  EXPECT_EQ(record["status"], "OK");
  const auto& resolved = record["resolved"]["workload"];
  EXPECT_EQ(resolved["model"], "lenet5");
  EXPECT_EQ(resolved["batch_size"], 8);
  EXPECT_EQ(resolved["epochs"], 2);
  EXPECT_EQ(resolved["threads"], 1);
  EXPECT_EQ(resolved["optimizer"], "SGD");  // resolved from the model's task, as a sweep records it
  EXPECT_EQ(resolved["device"], "cpu");
  EXPECT_EQ(record["resolved"]["cache"], "WARM");
  EXPECT_TRUE(record["context"]["simulated"].get<bool>());
  ASSERT_EQ(record["epochs"].size(), 2u);
  for (const auto& epoch : record["epochs"]) {
    EXPECT_GT(epoch["energy_j"].get<double>(), 0) << epoch.dump();
    EXPECT_GT(epoch["average_power_w"].get<double>(), 0) << epoch.dump();
  }
  // The trainer's own figures agree with the record's.
  ASSERT_EQ(json["epochs"].size(), 2u);
  // (Protobuf's JSON writes a 64-bit integer as a string.)
  EXPECT_EQ(std::to_string(json["epochs"][1]["samples"].get<std::int64_t>()), record["epochs"][1]["samples"]);

  const auto table = dir.path() / "train.txt";
  ASSERT_EQ(testing::run_jetchar(with(kTrain, {"--board", "sim:agx-orin-r36"}), table, err), kOk) << read_text(err);
  const auto text = read_text(table);
  EXPECT_THAT(text, HasSubstr("energy J"));
  EXPECT_THAT(
      text, ::testing::ContainsRegex("\n +1 +4 +[0-9.]+ +[0-9.]+ +[0-9.]+ .* [0-9]+\\.[0-9]{3} +[0-9]+\\.[0-9]{2}\n"));
  EXPECT_THAT(text, HasSubstr("energy: sum of module rails"));
}

TEST(TrainRouteTest, OnABoardWithoutRailsTheOutputSaysSoAndTheRecordHasNoEnergy) {
  testing::TempDir dir;
  const auto out = dir.path() / "train.json", err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(with(kTrain, {"--board", "host", "--json"}), out, err), kOk) << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  EXPECT_FALSE(json["record"]["epochs"][0].contains("energy_j"));
  EXPECT_THAT(json["record"]["reason"].get<std::string>(), HasSubstr("energy not measured"));
  const auto table = dir.path() / "train.txt";
  ASSERT_EQ(testing::run_jetchar(with(kTrain, {"--board", "host"}), table, err), kOk) << read_text(err);
  EXPECT_THAT(read_text(table), HasSubstr("measures no power, so energy J and W are absent"));
  EXPECT_THAT(read_text(err), HasSubstr("jetchar: note: no power sensors on this board"));
}

TEST(TrainRouteTest, WhatASweepRefusesBeforeItStartsIsBadInputNamingTheField) {
  testing::TempDir dir;
  const auto out = dir.path() / "out", err = dir.path() / "err";
  // A ResNet on single-channel images: the model does not fit the data set.
  ASSERT_EQ(testing::run_jetchar({"train", "--model", "resnet18-cifar", "--dataset",
                                  "synthetic:1x28x28?samples=16&classes=10", "--epochs", "1"},
                                 out, err),
            kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("jetchar train: workload.dataset"));
  EXPECT_EQ(read_text(out), "");
}

TEST(InferRouteTest, EachBatchSizeIsARunWithItsRecord) {
  testing::TempDir dir;
  const auto out = dir.path() / "infer.json", err = dir.path() / "infer.err";
  ASSERT_EQ(testing::run_jetchar({"infer", "--model", "lenet5", "--batch", "1,4", "--warmup", "0", "--queries", "3",
                                  "--classes", "7", "--threads", "1", "--board", "sim:agx-orin-r36", "--json"},
                                 out, err),
            kOk)
      << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  ASSERT_EQ(json.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& record = json[i]["record"];
    EXPECT_EQ(record["resolved"]["workload"]["task"], "INFER");
    EXPECT_EQ(record["resolved"]["workload"]["batch_size"], i == 0 ? 1 : 4);
    EXPECT_EQ(record["resolved"]["workload"]["inference"]["warmup_batches"], 0);  // none, as asked
    EXPECT_EQ(record["resolved"]["workload"]["inference"]["classes"], 7);
    EXPECT_EQ(record["latency"]["batches"], std::to_string(json[i]["latency"]["count"].get<std::int64_t>()));
    EXPECT_DOUBLE_EQ(record["latency"]["energy_per_query_j"].get<double>(),
                     json[i]["energy"]["per_query_j"].get<double>());
  }
}

}  // namespace
}  // namespace jetchar::cli
