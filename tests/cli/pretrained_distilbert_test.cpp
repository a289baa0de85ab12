// `--pretrained DIR` of train and infer with a DistilBERT folder, through the real jetchar: a random
// DistilBERT of distilbert-base's sizes in Hugging Face's layout, saved as a pretraining checkpoint
// is published (encoder and masked-LM head, no task heads; tests/experiments/tiny_hf_distilbert.py
// --base --no-heads), in pytorch_model.bin only. The task heads start fresh, as HF starts them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
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

// The JSON without spaces and line breaks, so a list reads the same however it is laid out.
std::string without_spaces(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; }),
             text.end());
  return text;
}

class PretrainedDistilBertTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto written = testing::python_script_output("tests/experiments/tiny_hf_distilbert.py", "--base --no-heads");
    if (!written) return;
    dir_ = std::make_unique<testing::TempDir>();
    // The torch.save format, through the CLI.
    testing::copy_files(*written, model(), {"model.safetensors"});
  }
  static void TearDownTestSuite() { dir_.reset(); }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  }
  static std::filesystem::path model() { return dir_->path() / "model"; }
  static inline std::unique_ptr<testing::TempDir> dir_;
};

TEST_F(PretrainedDistilBertTest, InferRunsTheCheckpointWithFreshHeads) {
  const auto out = dir_->path() / "infer.json";
  const auto err = dir_->path() / "infer.err";
  ASSERT_EQ(testing::run_jetchar({"infer", "--model", "distilbert-qa", "--pretrained", model().string(), "--seq-len",
                                  "32", "--warmup", "0", "--queries", "2", "--threads", "1", "--json"},
                                 out, err),
            kOk)
      << read_text(err);
  const auto json = read_text(out);
  // 4 embedding tensors and 16 per layer of 6; the QA head is fresh.
  EXPECT_THAT(json, HasSubstr("\"loaded_tensors\": 100"));
  EXPECT_THAT(json, HasSubstr("pytorch_model.bin"));
  EXPECT_THAT(without_spaces(json), HasSubstr(R"("fresh":["qa_outputs.weight","qa_outputs.bias"])"));
  EXPECT_THAT(json, HasSubstr("\"vocab_projector.weight\""));
}

TEST_F(PretrainedDistilBertTest, TrainFineTunesSequenceClassificationFromTheCheckpoint) {
  // SST-2's TSV layout; the words are pieces of the checkpoint's vocab.txt.
  const auto data = dir_->path() / "sst2";
  std::filesystem::create_directories(data);
  const std::string sentences =
      "sentence\tlabel\n"
      "w10 w11 w12\t1\n"
      "w13 w14\t0\n"
      "w15 w16 w17 w18\t1\n"
      "w19\t0\n";
  std::ofstream(data / "train.tsv") << sentences;
  std::ofstream(data / "dev.tsv") << sentences;
  const auto out = dir_->path() / "train.json";
  const auto err = dir_->path() / "train.err";
  ASSERT_EQ(testing::run_jetchar({"train", "--model", "distilbert", "--pretrained", model().string(), "--dataset",
                                  "textcls:" + data.string() + "?max_length=16", "--batch", "2", "--epochs", "1",
                                  "--threads", "1", "--eval", "--json"},
                                 out, err),
            kOk)
      << read_text(err);
  const auto json = read_text(out);
  EXPECT_THAT(json, HasSubstr("\"loaded_tensors\": 100"));
  EXPECT_THAT(
      without_spaces(json),
      HasSubstr(R"("fresh":["pre_classifier.weight","pre_classifier.bias","classifier.weight","classifier.bias"])"));
  EXPECT_THAT(json, ::testing::ContainsRegex("\"eval_accuracy\": [0-9]"));
  EXPECT_THAT(json, HasSubstr("\"status\": \"OK\""));
}

TEST_F(PretrainedDistilBertTest, ABertModelIsBadInputNamingTheFamilies) {
  const auto err = dir_->path() / "family.err";
  EXPECT_EQ(testing::run_jetchar({"infer", "--model", "bert-base", "--pretrained", model().string(), "--queries", "1"},
                                 "/dev/null", err),
            kBadInput);
  EXPECT_THAT(read_text(err),
              HasSubstr("holds a DistilBERT checkpoint (model_type \"distilbert\"); bert-base is a BERT "
                        "model: choose distilbert, distilbert-ner or distilbert-qa"));
}

}  // namespace
}  // namespace jetchar::cli
