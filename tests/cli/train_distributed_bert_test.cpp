// Data-parallel bert-tiny through the real jetchar, from a Hugging Face checkpoint (written by
// tests/experiments/tiny_hf_bert.py, its dropout set to 0: a dropout mask drawn for two samples is
// not the two masks the ranks draw for one each): two ranks of batch B/2 follow, step by step, the
// loss of one process with batch B, as token classification on CoNLL-2003 sentences that all hold
// the same number of labelled tokens, and as masked-LM pretraining in two phases on a corpus whose
// sequences all hold the same number of masked tokens (each rank's loss is a mean over its tokens,
// as in PyTorch's DDP).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;

// The checkpoint in `dir`/model, without dropout; nullopt (the test skips) without Python's torch.
std::optional<std::filesystem::path> checkpoint_without_dropout(const testing::TempDir& dir) {
  const auto written = testing::python_script_output("tests/experiments/tiny_hf_bert.py", "");
  if (!written) return std::nullopt;
  const auto model = dir.path() / "model";
  testing::copy_files(*written, model);
  auto config = nlohmann::json::parse(read_text(model / "config.json"));
  config["hidden_dropout_prob"] = 0.0;
  config["attention_probs_dropout_prob"] = 0.0;
  std::ofstream(model / "config.json") << config.dump(2);
  return model;
}

nlohmann::json train_json(const testing::TempDir& dir, std::vector<std::string> args, const std::string& name) {
  for (const char* common : {"--threads", "1", "--seed", "5", "--json"}) args.emplace_back(common);
  const auto out = dir.path() / (name + ".json"), err = dir.path() / (name + ".err");
  EXPECT_EQ(testing::run_jetchar(args, out, err), kOk) << read_text(err);
  return nlohmann::json::parse(read_text(out));
}

TEST(TrainDistributedBertTest, TwoRanksFollowTheLossOfOneProcessTrainingTheWholeGlobalBatch) {
  if (!testing::test_emulator().empty()) GTEST_SKIP() << "ranks re-exec jetchar, which the emulator cannot start";
  testing::TempDir dir;
  const auto model = checkpoint_without_dropout(dir);
  if (!model) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";

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
                                     model->string(),
                                     "--dataset",
                                     "conll2003:" + data.string() + "?max_length=16",
                                     "--batch",
                                     batch,
                                     "--epochs",
                                     "1",
                                     "--minibatches"};
    args.insert(args.end(), extra.begin(), extra.end());
    return train_json(dir, args, name);
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

// Two phases on two ranks: each phase's step losses follow one process's with the whole global
// batch, phase 2 (longer sequences, its own batch and accumulation) on the weights phase 1 left.
// Every document is one sentence longer than a sequence, so every sequence is full and masks the
// same number of tokens.
TEST(TrainDistributedBertTest, TwoRanksPretrainInTwoPhasesAsOneProcessDoes) {
  if (!testing::test_emulator().empty()) GTEST_SKIP() << "ranks re-exec jetchar, which the emulator cannot start";
  testing::TempDir dir;
  const auto model = checkpoint_without_dropout(dir);
  if (!model) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  std::string corpus;
  for (int document = 0; document < 16; ++document) {
    for (int word = 0; word < 40; ++word)
      corpus += fmt::format("{}w{}", word ? " " : "", 10 + (document * 7 + word) % 900);
    corpus += "\n\n";
  }
  const auto file = dir.path() / "corpus.txt";
  std::ofstream(file) << corpus;
  auto run = [&](const std::string& batch, const std::string& phase2_batch, const std::vector<std::string>& extra,
                 const std::string& name) {
    std::vector<std::string> args = {"train",
                                     "--model",
                                     "bert-tiny-mlm",
                                     "--pretrained",
                                     model->string(),
                                     "--dataset",
                                     "corpus:" + file.string() + "?short_seq_prob=0",
                                     "--batch",
                                     batch,
                                     "--lr",
                                     "0.001",
                                     "--phase",
                                     "seq=16,steps=6",
                                     "--phase",
                                     "seq=32,steps=3,batch=" + phase2_batch + ",accumulate=2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return train_json(dir, args, name);
  };
  const auto one = run("4", "2", {}, "one");
  // 16 sequences of batch 4: phase 1's 6 steps end inside its second epoch, which says so.
  EXPECT_THAT(read_text(dir.path() / "one.err"), ::testing::HasSubstr("phase 1 epoch 2: 2 minibatches"));
  EXPECT_THAT(read_text(dir.path() / "one.err"), ::testing::HasSubstr("(its phase's steps ended inside it)"));
  const auto two = run("2", "1", {"--nproc-per-node", "2"}, "two");
  ASSERT_EQ(two["settings"]["world_size"], 2);
  const auto& expected = one["record"]["phases"];
  const auto& got = two["record"]["phases"];
  ASSERT_EQ(expected.size(), 2u);
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(got[p]["samples"], expected[p]["samples"]) << "phase " << p + 1 << ": the world's sequences";
    ASSERT_EQ(expected[p]["step_loss"].size(), p == 0 ? 6u : 3u);
    ASSERT_EQ(got[p]["step_loss"].size(), expected[p]["step_loss"].size());
    for (std::size_t i = 0; i < got[p]["step_loss"].size(); ++i) {
      const double want = expected[p]["step_loss"][i];
      EXPECT_NEAR(got[p]["step_loss"][i].get<double>(), want, 1e-4 * std::max(1.0, std::abs(want)))
          << "phase " << p + 1 << " step " << i + 1;
    }
  }
}

}  // namespace
}  // namespace jetchar::cli
