// ELECTRA through the real jetchar: electra-small pretrained from scratch on a corpus the test
// writes, and continued from a Hugging Face discriminator folder (tests/experiments/tiny_hf_electra.py,
// pytorch_model.bin only), whose generator starts fresh.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;
using ::testing::HasSubstr;

// Two short documents of three sentences, repeated.
std::string corpus(const std::string& a, const std::string& b, const std::string& c) {
  std::string text;
  for (int copy = 0; copy < 4; ++copy) {
    text += a + " " + b + " .\n" + b + " " + c + " .\n" + c + " " + a + " .\n\n";
    text += c + " " + b + " .\n" + a + " " + a + " .\n" + b + " " + c + " .\n\n";
  }
  return text;
}

TEST(ElectraCliTest, PretrainsFromScratchOnACorpus) {
  testing::TempDir dir;
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncat\ndog\nbird\n.\n");
  const auto file = dir.write("corpus.txt", corpus("cat", "dog", "bird"));
  const auto out = dir.path() / "train.json";
  const auto err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar(
                {"train", "--model", "electra-small", "--dataset", "corpus:" + file.string() + "?max_length=16",
                 "--batch", "4", "--epochs", "1", "--max-batches", "2", "--threads", "1", "--json"},
                out, err),
            kOk)
      << read_text(err);
  const auto json = read_text(out);
  EXPECT_THAT(json, HasSubstr("\"status\": \"OK\""));
  EXPECT_THAT(json, HasSubstr("\"model\": \"electra-small\""));
  // The vocabulary is the corpus's 9 tokens: the shared table and the generator's decoder bias shrink.
  const std::int64_t parameters = 13'549'057 + 13'546'682 - 3'972'864 - (30522 - 9) * (128 + 1);
  EXPECT_THAT(json, HasSubstr("\"parameters\": " + std::to_string(parameters)));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"train_accuracy\": 0\\.[0-9]"));
}

TEST(ElectraCliTest, ContinuesFromAHuggingFaceDiscriminatorWithAFreshGenerator) {
  const auto written = testing::python_script_output("tests/experiments/tiny_hf_electra.py", "");
  if (!written) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  testing::TempDir dir;
  const auto model = dir.path() / "model";
  testing::copy_files(*written, model, {"model.safetensors"});  // the torch.save format, through the CLI
  // Words of the checkpoint's vocab.txt, which the corpus is tokenized with.
  const auto file = dir.write("corpus.txt", corpus("w10 w11", "w12", "w13 w14"));
  const auto out = dir.path() / "train.txt";
  const auto err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar({"train", "--model", "electra-small", "--pretrained", model.string(), "--dataset",
                                  "corpus:" + file.string() + "?max_length=16", "--batch", "4", "--epochs", "1",
                                  "--max-batches", "1", "--threads", "1"},
                                 out, err),
            kOk)
      << read_text(err);
  // 5 embedding tensors, the projection's 2, 16 per layer and the discriminator head's 4; the
  // generator (16 per layer, projection, head and decoder bias) is fresh and named in short.
  EXPECT_THAT(read_text(out), HasSubstr("pytorch_model.bin: 203 tensors loaded, 199 fresh (generator_bias, "
                                        "generator.embeddings_project.weight, generator.embeddings_project.bias, "
                                        "generator.layer0.query.weight, generator.layer0.query.bias, "
                                        "generator.layer0.key.weight and 193 more), 5 unused"));
}

TEST(ElectraCliTest, PretrainsInTwoPhasesTheSecondOnTheFirstsWeights) {
  testing::TempDir dir;
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncat\ndog\nbird\n.\n");
  const auto file = dir.write("corpus.txt", corpus("cat", "dog", "bird"));
  const auto out = dir.path() / "train.json";
  const auto err = dir.path() / "train.err";
  ASSERT_EQ(testing::run_jetchar({"train", "--model", "bert-tiny-mlm", "--dataset", "corpus:" + file.string(),
                                  "--batch", "4", "--lr", "0.002", "--threads", "1", "--phase", "seq=8,steps=30",
                                  "--phase", "seq=16,steps=4,batch=2,accumulate=2,lr=0.001", "--json"},
                                 out, err),
            kOk)
      << read_text(err);
  const auto json = nlohmann::json::parse(read_text(out));
  // Progress lines name the phase.
  EXPECT_THAT(read_text(err), HasSubstr("phase 2 epoch "));
  const auto& phases = json["record"]["phases"];
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0]["sequence_length"], 8);
  EXPECT_EQ(phases[0]["steps"], 30);
  EXPECT_EQ(phases[0]["batch_size"], 4);
  EXPECT_EQ(phases[1]["sequence_length"], 16);
  EXPECT_EQ(phases[1]["steps"], 4);
  EXPECT_EQ(phases[1]["samples"], "16");  // uint64 as protobuf's JSON writes it
  EXPECT_DOUBLE_EQ(phases[1]["learning_rate"].get<double>(), 0.001);
  // Phase 2 starts where phase 1 left the model: its first epoch's loss is well below that of the
  // same phase trained from fresh weights (about ln 9).
  const auto& epochs = json["epochs"];
  double phased = 0;
  for (auto it = epochs.rbegin(); it != epochs.rend(); ++it) {
    if ((*it)["phase"] == 2) phased = (*it)["mean_loss"];
  }
  const auto fresh_out = dir.path() / "fresh.json";
  ASSERT_EQ(
      testing::run_jetchar({"train", "--model", "bert-tiny-mlm", "--dataset", "corpus:" + file.string(), "--batch", "4",
                            "--threads", "1", "--phase", "seq=16,steps=4,batch=2,accumulate=2,lr=0.001", "--json"},
                           fresh_out, err),
      kOk)
      << read_text(err);
  const double fresh = nlohmann::json::parse(read_text(fresh_out))["epochs"][0]["mean_loss"];
  EXPECT_LT(phased, fresh - 0.2) << epochs.dump();
}

TEST(ElectraCliTest, PhasesOutsideAPretrainingCorpusAreBadInput) {
  testing::TempDir dir;
  const auto err = dir.path() / "err";
  EXPECT_EQ(testing::run_jetchar(
                {"train", "--model", "lenet5", "--dataset", "synthetic:1x28x28?samples=8", "--phase", "seq=8,steps=1"},
                "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("workload.phases: phases pretrain on a text corpus (corpus:FILE)"));
  EXPECT_EQ(testing::run_jetchar(
                {"train", "--model", "lenet5", "--dataset", "synthetic:1x28x28?samples=8", "--phase", "seq=8"},
                "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("phase 'seq=8': steps is missing"));
}

}  // namespace
}  // namespace jetchar::cli
