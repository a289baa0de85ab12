// Data-parallel bert-tiny through the real jetchar: two ranks of batch 1 follow, step by step, the
// loss of one process with batch 2 over 20 steps, from the same Hugging Face checkpoint (written by
// tests/experiments/tiny_hf_bert.py, its dropout set to 0: a dropout mask drawn for two samples is
// not the two masks the ranks draw for one each) on CoNLL-2003 sentences that all hold the same
// number of labelled tokens (each rank's loss is a mean over its tokens, as in PyTorch's DDP).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;

TEST(TrainDistributedBertTest, TwoRanksFollowTheLossOfOneProcessTrainingTheWholeGlobalBatch) {
  if (!testing::test_emulator().empty()) GTEST_SKIP() << "ranks re-exec jetchar, which the emulator cannot start";
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  testing::TempDir dir;
  const auto model = dir.path() / "model";
  std::filesystem::create_directories(model);
  const auto script = testing::source_dir() / "tests/experiments/tiny_hf_bert.py";
  ASSERT_EQ(std::system(("/usr/bin/python3 '" + script.string() + "' '" + model.string() + "' >/dev/null").c_str()), 0);
  auto config = nlohmann::json::parse(read_text(model / "config.json"));
  config["hidden_dropout_prob"] = 0.0;
  config["attention_probs_dropout_prob"] = 0.0;
  std::ofstream(model / "config.json") << config.dump(2);

  // 40 sentences of three words, each word one piece of the checkpoint's vocabulary.
  const auto data = dir.path() / "conll";
  std::filesystem::create_directories(data);
  std::string sentences = "-DOCSTART- -X- -X- O\n\n";
  const char* tags[] = {"B-PER", "O", "B-LOC", "I-LOC", "B-ORG", "O", "B-MISC"};
  for (int s = 0; s < 40; ++s) {
    for (int w = 0; w < 3; ++w) sentences += fmt::format("w{} NNP B-NP {}\n", 10 + (s * 3 + w) % 80, tags[(s + w) % 7]);
    sentences += "\n";
  }
  std::ofstream(data / "train.txt") << sentences;

  auto run = [&](const std::string& batch, const std::vector<std::string>& extra, const std::string& name) {
    std::vector<std::string> args = {"train",
                                     "--model",
                                     "bert-tiny-ner",
                                     "--pretrained",
                                     model.string(),
                                     "--dataset",
                                     "conll2003:" + data.string() + "?max_length=16",
                                     "--batch",
                                     batch,
                                     "--epochs",
                                     "1",
                                     "--threads",
                                     "1",
                                     "--seed",
                                     "5",
                                     "--minibatches",
                                     "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto out = dir.path() / (name + ".json"), err = dir.path() / (name + ".err");
    EXPECT_EQ(testing::run_jetchar(args, out, err), kOk) << read_text(err);
    return nlohmann::json::parse(read_text(out));
  };
  const auto one = run("2", {}, "one");
  const auto two = run("1", {"--nproc-per-node", "2"}, "two");
  ASSERT_EQ(one["minibatches"].size(), 20U);
  ASSERT_EQ(two["minibatches"].size(), 20U);
  for (std::size_t i = 0; i < 20; ++i) {
    const double expected = one["minibatches"][i]["loss"];
    const double got = two["minibatches"][i]["loss"];
    EXPECT_NEAR(got, expected, 1e-4 * std::max(1.0, std::abs(expected))) << "step " << i;
  }
}

}  // namespace
}  // namespace jetchar::cli
