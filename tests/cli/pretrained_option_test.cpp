// `--pretrained DIR` of train and infer, through the real jetchar: a tiny random BERT in Hugging
// Face's layout (tests/experiments/tiny_hf_bert.py) loads and runs; a model of another size is bad
// input (exit 3) naming both sizes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;

using jetchar::testing::read_text;

class PretrainedOptionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto written = testing::python_script_output("tests/experiments/tiny_hf_bert.py", "");
    if (!written) return;
    dir_ = std::make_unique<testing::TempDir>();
    testing::copy_files(*written, dir_->path() / "model");
  }
  static void TearDownTestSuite() { dir_.reset(); }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  }
  static inline std::unique_ptr<testing::TempDir> dir_;
};

TEST_F(PretrainedOptionTest, InferRunsTheCheckpointAndReportsWhatItLoaded) {
  const auto out = dir_->path() / "infer.json";
  const auto err = dir_->path() / "infer.err";
  ASSERT_EQ(
      testing::run_jetchar({"infer", "--model", "bert-tiny-ner", "--pretrained", (dir_->path() / "model").string(),
                            "--seq-len", "32", "--warmup", "0", "--queries", "2", "--threads", "1", "--json"},
                           out, err),
      kOk)
      << read_text(err);
  const auto json = read_text(out);
  EXPECT_THAT(json, HasSubstr("\"loaded_tensors\": 39"));
  EXPECT_THAT(json, HasSubstr("model.safetensors"));
  EXPECT_THAT(json, HasSubstr("\"cls.predictions.bias\""));
  // The record keys the checkpoint by content (results/setting_values.h).
  EXPECT_THAT(json, ::testing::ContainsRegex("\"pretrained_sha256\": \"sha256:[0-9a-f]{64}\""));
}

TEST_F(PretrainedOptionTest, AModelOfAnotherSizeIsBadInput) {
  const auto err = dir_->path() / "size.err";
  EXPECT_EQ(testing::run_jetchar({"infer", "--model", "bert-base-qa", "--pretrained", (dir_->path() / "model").string(),
                                  "--queries", "1"},
                                 "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err),
              HasSubstr("describes 2 layers, hidden 128, 2 heads, intermediate 512; bert-base has 12 layers"));
}

TEST_F(PretrainedOptionTest, TrainFineTunesFromTheCheckpointWithItsVocabulary) {
  // CoNLL-2003 lines (word POS chunk NER) whose words are pieces of the checkpoint's vocab.txt.
  const auto data = dir_->path() / "conll";
  std::filesystem::create_directories(data);
  const std::string sentences =
      "-DOCSTART- -X- -X- O\n\n"
      "w10 NNP B-NP B-ORG\nw11 VBZ B-VP O\nw12 NNP B-NP B-PER\n\n"
      "w13 NNP B-NP B-LOC\nw14 NNP I-NP I-LOC\nw15 . O O\n\n"
      "w16 NNP B-NP B-MISC\nw17 NN I-NP O\n\n"
      "w18 NNP B-NP B-PER\nw19 NNP I-NP I-PER\n";
  std::ofstream(data / "train.txt") << sentences;
  std::ofstream(data / "valid.txt") << sentences;
  const auto out = dir_->path() / "train.json";
  const auto err = dir_->path() / "train.err";
  ASSERT_EQ(
      testing::run_jetchar({"train", "--model", "bert-tiny-ner", "--pretrained", (dir_->path() / "model").string(),
                            "--dataset", "conll2003:" + data.string() + "?max_length=16", "--batch", "2", "--epochs",
                            "1", "--threads", "1", "--eval", "--json"},
                           out, err),
      kOk)
      << read_text(err);
  const auto json = read_text(out);
  // Entity-level scores of the validation split after the epoch (their values depend on the random weights).
  EXPECT_THAT(json, ::testing::ContainsRegex("\"eval_entity_f1\": [0-9]"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"eval_entity_precision\": [0-9]"));
  // The checkpoint's classifier holds CoNLL-2003's 9 labels: every tensor but the unused ones loads.
  EXPECT_THAT(json, HasSubstr("\"loaded_tensors\": 39"));
  EXPECT_THAT(json, HasSubstr("\"fresh\": []"));
  EXPECT_THAT(json, HasSubstr("\"status\": \"OK\""));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"pretrained_sha256\": \"sha256:[0-9a-f]{64}\""));
}

TEST_F(PretrainedOptionTest, AFolderWithoutWeightsIsBadInput) {
  const auto folder = dir_->path() / "config-only";
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(dir_->path() / "model" / "config.json", folder / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  const auto err = dir_->path() / "empty.err";
  EXPECT_EQ(testing::run_jetchar({"infer", "--model", "bert-tiny", "--pretrained", folder.string(), "--queries", "1"},
                                 "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("holds neither model.safetensors nor pytorch_model.bin"));
}

}  // namespace
}  // namespace jetchar::cli
