// Pretrained ELECTRA from a Hugging Face model folder: tests/experiments/tiny_hf_electra.py writes a
// random discriminator of electra-small's sizes (with a small vocabulary) in HF's layout, as
// ElectraForPreTraining with the QA and token heads beside it, and as a bare ElectraModel, plus the
// outputs of a plain PyTorch forward of the same weights; jetchar's models loaded from either
// weight format must match them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/models/electra.h"
#include "tests/experiments/checkpoints/hf_reference.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using hf_reference::max_difference;
using hf_reference::reference_batch;
using ::testing::HasSubstr;

class HfElectraCheckpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const auto& [name, arguments] : {std::pair<std::string, std::string>{"full", ""}, {"bare", "--bare"}}) {
      const auto folder = testing::python_script_output("tests/experiments/tiny_hf_electra.py", arguments);
      if (!folder) return;
      folders_[name] = *folder;
    }
  }

  void SetUp() override {
    if (folders_.size() < 2) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoints";
  }

  // A model folder holding only one of the weight files (linked, not copied).
  static std::filesystem::path folder_with(const char* folder, const std::string& weights,
                                           const testing::TempDir& into) {
    for (const std::string& name : {std::string("config.json"), std::string("vocab.txt"), weights}) {
      std::filesystem::create_symlink(folders_.at(folder) / name, into.path() / name);
    }
    return into.path();
  }

  static TensorMap reference(const char* folder) {
    return read_safetensors(folders_.at(folder) / "reference.safetensors");
  }

  static inline std::map<std::string, std::filesystem::path> folders_;
  hf_reference::OneComputeThread threads_;
};

TEST_F(HfElectraCheckpointTest, BothWeightFormatsMatchTheReferenceForward) {
  const auto expected = reference("full");
  const auto batch = reference_batch(expected);
  for (const std::string weights : {"model.safetensors", "pytorch_model.bin"}) {
    SCOPED_TRACE(weights);
    testing::TempDir folder;
    folder_with("full", weights, folder);
    torch::NoGradGuard no_grad;
    for (const auto& [model_name, output] : {std::pair<std::string, std::string>{"electra-small-qa", "qa_logits"},
                                             {"electra-small-ner", "token_logits"}}) {
      auto pretrained = make_pretrained_model(find_model(model_name), folder.path(), std::nullopt, 0);
      EXPECT_EQ(pretrained.load.weights_file, (folder.path() / weights).string());
      EXPECT_TRUE(pretrained.load.fresh.empty()) << model_name;
      EXPECT_EQ(pretrained.config.embedding_size, 128);
      EXPECT_EQ(pretrained.config.vocab_size, 1200);
      pretrained.network->eval();
      EXPECT_LT(max_difference(pretrained.network->forward_batch(batch), expected.at(output)), 1e-5) << model_name;
    }
    // The pretraining model takes the discriminator and its head; its generator starts fresh.
    auto pretrained = make_pretrained_model(find_model("electra-small"), folder.path(), std::nullopt, 0);
    auto& electra = dynamic_cast<ElectraForPreTrainingImpl&>(*pretrained.network);
    electra.eval();
    EXPECT_LT(max_difference(electra.discriminate(batch), expected.at("discriminator_logits")), 1e-5);
    EXPECT_EQ(pretrained.load.loaded_tensors, 5 + 2 + 12 * 16 + 4);
    for (const auto& name : pretrained.load.fresh) EXPECT_TRUE(name.starts_with("generator")) << name;
    EXPECT_EQ(pretrained.load.fresh.size(), 12u * 16 + 2 + 5);  // layers, projection, dense, norm, bias
    std::sort(pretrained.load.unused.begin(), pretrained.load.unused.end());
    EXPECT_EQ(pretrained.load.unused,
              (std::vector<std::string>{"classifier.bias", "classifier.weight", "electra.embeddings.position_ids",
                                        "qa_outputs.bias", "qa_outputs.weight"}));
  }
}

TEST_F(HfElectraCheckpointTest, ABareElectraModelLoadsWithFreshHeads) {
  const auto expected = reference("bare");
  const auto batch = reference_batch(expected);
  for (const std::string weights : {"model.safetensors", "pytorch_model.bin"}) {
    SCOPED_TRACE(weights);
    testing::TempDir folder;
    folder_with("bare", weights, folder);
    auto pretrained = make_pretrained_model(find_model("electra-small-qa"), folder.path(), std::nullopt, 4);
    EXPECT_EQ(pretrained.load.fresh, (std::vector<std::string>{"qa_outputs.weight", "qa_outputs.bias"}));
    EXPECT_EQ(pretrained.load.unused, std::vector<std::string>{"embeddings.position_ids"});
    // The encoder is the checkpoint's: the QA logits are the reference hidden states through the fresh head.
    torch::NoGradGuard no_grad;
    pretrained.network->eval();
    const auto p = pretrained.network->named_parameters();
    EXPECT_EQ(p["qa_outputs.bias"].abs().max().item<double>(), 0.0);
    const auto head =
        torch::nn::functional::linear(expected.at("hidden"), p["qa_outputs.weight"], p["qa_outputs.bias"]);
    EXPECT_LT(max_difference(pretrained.network->forward_batch(batch), head), 1e-5);
  }
}

TEST_F(HfElectraCheckpointTest, AnotherFamilyOrSizeIsBadInputNamingBoth) {
  const auto folder = folders_.at("full");
  EXPECT_THAT([&] { make_pretrained_model(find_model("bert-tiny-qa"), folder, std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("config.json holds an ELECTRA checkpoint (model_type \"electra\"); bert-tiny is a BERT "
                            "model: choose an electra-* model of the checkpoint's size")));
  EXPECT_THAT(
      [&] { make_pretrained_model(find_model("electra-base-qa"), folder, std::nullopt, 0); },
      ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
          "describes 12 layers, hidden 256, 4 heads, intermediate 1024; electra-base has 12 layers, hidden 768")));
  // A checkpoint of electra-small's encoder with another embedding width.
  auto hf = read_hf_bert_config(folder);
  hf.embedding_size = 64;
  EXPECT_THAT([&] { bert_config_from_hf(hf, electra_config("electra-small").discriminator, "c.json"); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("c.json describes embedding_size 64; electra-small has 128: choose the model of the "
                            "checkpoint's size")));
  // An unknown tensor is named.
  const TensorMap weights{{"electra.pooler.dense.weight", torch::zeros({256, 256})}};
  auto model = make_model(find_model("electra-small-qa"));
  EXPECT_THAT([&] { load_hf_bert_weights(*model, weights, 0.02, 0, "w.safetensors", HfModelType::kElectra); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
                  "w.safetensors: tensor 'electra.pooler.dense.weight' [256, 256] is not a parameter of ELECTRA")));
}

TEST(HfElectraConfigTest, ReadsElectraFieldsWithHfsDefaults) {
  const auto defaults = parse_hf_bert_config(R"({"model_type": "electra"})", "c.json");
  EXPECT_EQ(defaults.model_type, HfModelType::kElectra);
  EXPECT_EQ(defaults.embedding_size, 128);
  EXPECT_EQ(defaults.hidden_size, 256);
  EXPECT_EQ(defaults.num_attention_heads, 4);
  EXPECT_EQ(defaults.intermediate_size, 1024);
  EXPECT_EQ(defaults.num_hidden_layers, 12);
  const auto base = parse_hf_bert_config(
      R"({"model_type": "electra", "embedding_size": 768, "hidden_size": 768, "num_attention_heads": 12,
          "intermediate_size": 3072})",
      "c.json");
  EXPECT_EQ(base.embedding_size, 768);
  EXPECT_EQ(parse_hf_bert_config(R"({"hidden_size": 768})", "c.json").embedding_size, 768);  // BERT: the hidden size
  EXPECT_THAT([] { parse_hf_bert_config(R"({"model_type": "electra", "embedding_size": 0})", "c.json"); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("c.json: embedding_size is 0; valid: an integer from 1 to 2^31")));
}

}  // namespace
}  // namespace jetchar::experiments
