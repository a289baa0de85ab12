// Pretrained DistilBERT from a Hugging Face model folder: tests/experiments/tiny_hf_distilbert.py writes
// random DistilBERTs in HF's layout (model.safetensors and pytorch_model.bin) and the outputs of a plain
// PyTorch forward of the same weights; jetchar's distilbert models loaded from either file must match them.
// Three folders: a tiny one (2 layers, dim 128) with learned positions, the same with sinusoidal positions,
// and one of distilbert-base's sizes (jetchar's `distilbert` preset) with a small vocabulary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/models/bert_heads.h"
#include "tests/experiments/checkpoints/hf_reference.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using hf_reference::max_difference;
using hf_reference::reference_batch;
using ::testing::HasSubstr;

class HfDistilBertCheckpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const auto& [name, arguments] :
         {std::pair<std::string, std::string>{"tiny", ""}, {"sinusoidal", "--sinusoidal"}, {"base", "--base"}}) {
      const auto folder = testing::python_script_output("tests/experiments/tiny_hf_distilbert.py", arguments);
      if (!folder) return;
      folders_[name] = *folder;
    }
  }

  void SetUp() override {
    if (folders_.size() < 3) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoints";
  }

  static std::filesystem::path folder(const char* name) { return folders_.at(name); }

  static TensorMap weights_of(const std::filesystem::path& dir, const std::string& file) {
    return file.ends_with(".safetensors") ? read_safetensors(dir / file) : read_torch_state_dict(dir / file);
  }

  // jetchar's distilbert preset at the tiny folder's sizes: the model make_pretrained_model would build
  // for a registry model of that size.
  static BertConfig tiny_config(const char* name) {
    auto preset = bert_config("distilbert");
    preset.layers = 2;
    preset.hidden = 128;
    preset.heads = 2;
    preset.intermediate = 512;
    return bert_config_from_hf(read_hf_bert_config(folder(name)), preset, "config.json");
  }

  static std::string load_error(const TensorMap& weights) {
    auto model = BertForSequenceClassification(tiny_config("tiny"), 9);
    try {
      load_hf_bert_weights(*model, weights, 0.02, 0, "w.safetensors", HfModelType::kDistilBert);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "no error";
  }

  static inline std::map<std::string, std::filesystem::path> folders_;
  hf_reference::OneComputeThread threads_;
};

TEST_F(HfDistilBertCheckpointTest, TinyModelsInBothFormatsMatchTheReferenceForward) {
  torch::NoGradGuard no_grad;
  for (const char* name : {"tiny", "sinusoidal"}) {
    const auto reference = read_safetensors(folder(name) / "reference.safetensors");
    const auto batch = reference_batch(reference);
    const auto config = tiny_config(name);
    for (const std::string file : {"model.safetensors", "pytorch_model.bin"}) {
      SCOPED_TRACE(std::string(name) + "/" + file);
      const auto weights = weights_of(folder(name), file);
      const std::vector<std::pair<std::shared_ptr<Network>, std::string>> cases = {
          {BertForTokenClassification(config, 9).ptr(), "token_logits"},
          {BertForQuestionAnswering(config).ptr(), "qa_logits"},
          {BertForSequenceClassification(config, 9).ptr(), "sequence_logits"}};
      for (const auto& [model, output] : cases) {
        const auto load = load_hf_bert_weights(*model, weights, 0.02, 0, file, HfModelType::kDistilBert);
        EXPECT_TRUE(load.fresh.empty()) << output;
        model->eval();
        EXPECT_LT(max_difference(model->forward_batch(batch), reference.at(output)), 1e-5) << output;
      }
    }
  }
}

TEST_F(HfDistilBertCheckpointTest, SinusoidalPositionsAreHfsTableAndStayFixed) {
  const auto config = tiny_config("sinusoidal");
  EXPECT_TRUE(config.sinusoidal_positions);
  EXPECT_FALSE(tiny_config("tiny").sinusoidal_positions);
  // A model built with sinusoidal positions holds the table the writer computed with HF's formula.
  auto fresh = BertForTokenClassification(config, 9);
  const auto table = fresh->named_parameters()["bert.position_embeddings.weight"];
  const auto written = read_safetensors(folder("sinusoidal") / "model.safetensors")
                           .at("distilbert.embeddings.position_embeddings.weight");
  EXPECT_LT(max_difference(table, written), 1e-6);
  // As HF's create_sinusoidal_embeddings sets requires_grad=False: training leaves it as it is.
  EXPECT_FALSE(table.requires_grad());
  EXPECT_TRUE(fresh->named_parameters()["bert.word_embeddings.weight"].requires_grad());
  auto learned = BertForTokenClassification(tiny_config("tiny"), 9);
  EXPECT_TRUE(learned->named_parameters()["bert.position_embeddings.weight"].requires_grad());
}

TEST_F(HfDistilBertCheckpointTest, TheRegistryModelLoadsBothFormatsAndMatchesTheReference) {
  const auto reference = read_safetensors(folder("base") / "reference.safetensors");
  const auto batch = reference_batch(reference);
  torch::NoGradGuard no_grad;
  for (const std::string file : {"model.safetensors", "pytorch_model.bin"}) {
    SCOPED_TRACE(file);
    testing::TempDir copy;
    for (const std::string& name : {std::string("config.json"), std::string("vocab.txt"), file}) {
      std::filesystem::copy_file(folder("base") / name, copy.path() / name);
    }
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"distilbert-ner", "token_logits"}, {"distilbert-qa", "qa_logits"}, {"distilbert", "sequence_logits"}};
    for (const auto& [model_name, output] : cases) {
      auto pretrained = make_pretrained_model(find_model(model_name), copy.path(), std::nullopt, 0);
      EXPECT_EQ(pretrained.load.weights_file, (copy.path() / file).string());
      EXPECT_TRUE(pretrained.load.fresh.empty()) << model_name;
      pretrained.network->eval();
      EXPECT_LT(max_difference(pretrained.network->forward_batch(batch), reference.at(output)), 1e-5) << model_name;
    }
  }
}

TEST_F(HfDistilBertCheckpointTest, ReportsUnusedTensorsAndTheConfigsDropouts) {
  auto pretrained = make_pretrained_model(find_model("distilbert-ner"), folder("base"), std::nullopt, 0);
  std::sort(pretrained.load.unused.begin(), pretrained.load.unused.end());
  EXPECT_EQ(pretrained.load.unused,
            (std::vector<std::string>{"distilbert.embeddings.position_ids", "pre_classifier.bias",
                                      "pre_classifier.weight", "qa_outputs.bias", "qa_outputs.weight",
                                      "vocab_layer_norm.bias", "vocab_layer_norm.weight", "vocab_projector.bias",
                                      "vocab_projector.weight", "vocab_transform.bias", "vocab_transform.weight"}));
  // 4 embedding tensors, 16 per layer, the classifier's 2.
  EXPECT_EQ(pretrained.load.loaded_tensors, 4 + 6 * 16 + 2);
  EXPECT_EQ(pretrained.config.vocab_size, 1200);
  EXPECT_EQ(pretrained.config.max_positions, 64);
  EXPECT_EQ(pretrained.config.type_vocab_size, 0);
  EXPECT_DOUBLE_EQ(pretrained.config.sequence_dropout, 0.2);
  EXPECT_DOUBLE_EQ(pretrained.config.qa_dropout, 0.1);
  EXPECT_DOUBLE_EQ(pretrained.config.dropout, 0.1);
}

TEST_F(HfDistilBertCheckpointTest, FreshHeadsAreInitialisedAsHfDoes) {
  auto weights = read_safetensors(folder("tiny") / "model.safetensors");
  for (const char* name : {"pre_classifier.weight", "pre_classifier.bias", "classifier.weight", "classifier.bias"}) {
    weights.erase(name);
  }
  auto model = BertForSequenceClassification(tiny_config("tiny"), 3);
  const auto load = load_hf_bert_weights(*model, weights, 0.5, 7, "w.safetensors", HfModelType::kDistilBert);
  EXPECT_EQ(load.fresh, (std::vector<std::string>{"pre_classifier.weight", "pre_classifier.bias", "classifier.weight",
                                                  "classifier.bias"}));
  const auto parameters = model->named_parameters();
  EXPECT_EQ(parameters["pre_classifier.bias"].abs().max().item<double>(), 0.0);
  // 128 x 128 draws from N(0, 0.5): the sample deviation is 0.5 within a few percent.
  EXPECT_NEAR(parameters["pre_classifier.weight"].std().item<double>(), 0.5, 0.02);
  EXPECT_NEAR(parameters["pre_classifier.weight"].mean().item<double>(), 0.0, 0.02);
}

TEST_F(HfDistilBertCheckpointTest, MissingUnknownOrMisShapedTensorsAreNamed) {
  const auto weights = read_safetensors(folder("tiny") / "model.safetensors");
  EXPECT_EQ(load_error(weights), "no error");

  auto missing = weights;
  missing.erase("distilbert.transformer.layer.1.ffn.lin2.bias");
  EXPECT_THAT(load_error(missing),
              HasSubstr("no tensor for the model's bert.layer1.output.bias [128] (HF name "
                        "expected under distilbert.embeddings or distilbert.transformer.layer.N)"));

  auto unknown = weights;
  unknown.emplace("distilbert.embeddings.token_type_embeddings.weight", torch::zeros({2, 128}));
  EXPECT_THAT(load_error(unknown), HasSubstr("tensor 'distilbert.embeddings.token_type_embeddings.weight' [2, 128] is "
                                             "not a parameter of DistilBERT"));

  auto bert_name = weights;
  bert_name.emplace("bert.encoder.layer.0.attention.self.query.weight", torch::zeros({128, 128}));
  EXPECT_THAT(load_error(bert_name), HasSubstr("'bert.encoder.layer.0.attention.self.query.weight' [128, 128] is not "
                                               "a parameter of DistilBERT"));

  auto extra_layer = weights;
  extra_layer.emplace("distilbert.transformer.layer.2.ffn.lin1.bias", torch::zeros({512}));
  EXPECT_THAT(load_error(extra_layer),
              HasSubstr("'distilbert.transformer.layer.2.ffn.lin1.bias' has no place in this model"));

  auto misshaped = weights;
  misshaped["distilbert.transformer.layer.0.ffn.lin1.weight"] = torch::zeros({512, 64});
  EXPECT_THAT(load_error(misshaped),
              HasSubstr("tensor 'distilbert.transformer.layer.0.ffn.lin1.weight' has shape [512, 64], but the "
                        "model's bert.layer0.intermediate.weight has shape [512, 128]"));
}

TEST_F(HfDistilBertCheckpointTest, AModelOfAnotherSizeOrFamilyIsRefused) {
  EXPECT_THAT([&] { make_pretrained_model(find_model("distilbert"), folder("tiny"), std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
                  "describes 2 layers, hidden 128, 2 heads, intermediate 512; distilbert has 6 layers, hidden 768")));
  EXPECT_THAT([&] { make_pretrained_model(find_model("bert-tiny-ner"), folder("tiny"), std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("config.json holds a DistilBERT checkpoint (model_type \"distilbert\"); bert-tiny is a "
                            "BERT model: choose distilbert, distilbert-ner or distilbert-qa")));
  HfBertConfig bert;
  EXPECT_THAT([&] { bert_config_from_hf(bert, bert_config("distilbert"), "b/config.json"); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("b/config.json holds a BERT checkpoint (model_type \"bert\"); distilbert is a DistilBERT "
                            "model: choose a bert-* model of the checkpoint's size")));
}

TEST(HfDistilBertConfigTest, ReadsDistilBertFieldsWithHfsDefaults) {
  const auto defaults = parse_hf_bert_config(R"({"model_type": "distilbert"})", "c.json");
  EXPECT_EQ(defaults.model_type, HfModelType::kDistilBert);
  EXPECT_EQ(defaults.hidden_size, 768);
  EXPECT_EQ(defaults.num_hidden_layers, 6);
  EXPECT_EQ(defaults.num_attention_heads, 12);
  EXPECT_EQ(defaults.intermediate_size, 3072);
  EXPECT_EQ(defaults.type_vocab_size, 0);
  EXPECT_EQ(defaults.vocab_size, 30522);
  EXPECT_EQ(defaults.max_position_embeddings, 512);
  EXPECT_FALSE(defaults.sinusoidal_positions);
  EXPECT_DOUBLE_EQ(defaults.sequence_dropout, 0.2);
  EXPECT_DOUBLE_EQ(defaults.qa_dropout, 0.1);
  EXPECT_DOUBLE_EQ(defaults.hidden_dropout_prob, 0.1);
  EXPECT_DOUBLE_EQ(defaults.layer_norm_eps, 1e-12);

  const auto config = parse_hf_bert_config(
      R"({"model_type": "distilbert", "dim": 256, "n_layers": 3, "n_heads": 4, "hidden_dim": 1024,
          "dropout": 0.15, "attention_dropout": 0.05, "seq_classif_dropout": 0.3, "qa_dropout": 0.25,
          "sinusoidal_pos_embds": true, "activation": "gelu", "initializer_range": 0.03,
          "id2label": {"0": "NEGATIVE", "1": "POSITIVE"}})",
      "c.json");
  EXPECT_EQ(config.hidden_size, 256);
  EXPECT_EQ(config.num_hidden_layers, 3);
  EXPECT_EQ(config.num_attention_heads, 4);
  EXPECT_EQ(config.intermediate_size, 1024);
  EXPECT_DOUBLE_EQ(config.hidden_dropout_prob, 0.15);
  EXPECT_DOUBLE_EQ(config.attention_probs_dropout_prob, 0.05);
  EXPECT_DOUBLE_EQ(config.sequence_dropout, 0.3);
  EXPECT_DOUBLE_EQ(config.qa_dropout, 0.25);
  EXPECT_DOUBLE_EQ(config.initializer_range, 0.03);
  EXPECT_TRUE(config.sinusoidal_positions);
  EXPECT_EQ(config.labels, (std::vector<std::string>{"NEGATIVE", "POSITIVE"}));

  // DistilBertConfig.attribute_map: hidden_size, num_hidden_layers, num_attention_heads set dim, n_layers, n_heads.
  const auto aliased = parse_hf_bert_config(
      R"({"model_type": "distilbert", "dim": 256, "hidden_size": 512, "n_heads": 4, "num_attention_heads": 8,
          "num_hidden_layers": 2})",
      "c.json");
  EXPECT_EQ(aliased.hidden_size, 512);
  EXPECT_EQ(aliased.num_attention_heads, 8);
  EXPECT_EQ(aliased.num_hidden_layers, 2);

  // A BERT config's sequence head drops out with hidden_dropout_prob, and its QA head has no dropout.
  const auto bert = parse_hf_bert_config(R"({"hidden_dropout_prob": 0.3})", "c.json");
  EXPECT_EQ(bert.model_type, HfModelType::kBert);
  EXPECT_DOUBLE_EQ(bert.sequence_dropout, 0.3);
  EXPECT_DOUBLE_EQ(bert.qa_dropout, 0.0);
}

TEST(HfDistilBertConfigTest, RefusesWhatJetcharDoesNotBuild) {
  auto error = [](const char* json) {
    try {
      parse_hf_bert_config(json, "c.json");
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"({"model_type": "distilbert", "activation": "relu"})"),
              HasSubstr("c.json: activation is \"relu\"; jetchar builds only 'gelu'"));
  EXPECT_THAT(error(R"({"model_type": "distilbert", "sinusoidal_pos_embds": "yes"})"),
              HasSubstr("c.json: sinusoidal_pos_embds is \"yes\"; valid: true or false"));
  EXPECT_THAT(error(R"({"model_type": "distilbert", "dim": 100})"),
              HasSubstr("c.json: dim 100 is not a multiple of n_heads 12"));
  EXPECT_THAT(error(R"({"model_type": "distilbert", "n_layers": 0})"),
              HasSubstr("n_layers is 0; valid: an integer from 1 to 2^31"));
  EXPECT_THAT(error(R"({"model_type": "distilbert", "seq_classif_dropout": 2})"),
              HasSubstr("seq_classif_dropout is 2; valid: a number from 0 to 1"));
  EXPECT_THAT(error(R"({"model_type": "roberta"})"),
              HasSubstr("c.json: model_type is \"roberta\"; jetchar builds 'bert', 'distilbert' and 'electra'"));
  EXPECT_THAT(error(R"({"model_type": 7})"), HasSubstr("model_type is 7"));
}

}  // namespace
}  // namespace jetchar::experiments
