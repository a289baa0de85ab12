// Pretrained BERT from a Hugging Face model folder: tests/experiments/tiny_hf_bert.py writes a tiny
// random BERT in HF's layout (model.safetensors and pytorch_model.bin) and the outputs of a plain
// PyTorch forward of the same weights; jetchar's models loaded from either file must match them.
#include "experiments/checkpoints/hf_checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <optional>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/models/bert_heads.h"
#include "experiments/models/bert_masked_lm.h"
#include "tests/experiments/checkpoints/hf_reference.h"
#include "tests/support/python_script_output.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using hf_reference::max_difference;
using hf_reference::reference_batch;
using ::testing::HasSubstr;

class HfCheckpointTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { dir_ = testing::python_script_output("tests/experiments/tiny_hf_bert.py", ""); }

  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "/usr/bin/python3 with torch is needed to write the test checkpoint";
  }

  static const std::filesystem::path& dir() { return *dir_; }

  // Copies the model folder without one of its weight files.
  static std::filesystem::path folder_with(const std::string& weights, const testing::TempDir& into) {
    for (const char* name : {"config.json", "vocab.txt"}) std::filesystem::copy_file(dir() / name, into.path() / name);
    std::filesystem::copy_file(dir() / weights, into.path() / weights);
    return into.path();
  }

  static std::string load_error(const TensorMap& weights) {
    auto model = BertForTokenClassification(bert_tiny_config(), 9);
    try {
      load_hf_bert_weights(*model, weights, 0.02, 0, "w.safetensors");
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "no error";
  }

  static BertConfig bert_tiny_config() {
    return bert_config_from_hf(read_hf_bert_config(dir()), bert_config("bert-tiny"), "config.json");
  }

  static inline std::optional<std::filesystem::path> dir_;
  hf_reference::OneComputeThread threads_;
};

TEST_F(HfCheckpointTest, BothWeightFormatsMatchTheReferenceForward) {
  const auto reference = read_safetensors(dir() / "reference.safetensors");
  const auto batch = reference_batch(reference);
  for (const std::string weights : {"model.safetensors", "pytorch_model.bin"}) {
    SCOPED_TRACE(weights);
    testing::TempDir folder;
    folder_with(weights, folder);
    torch::NoGradGuard no_grad;
    const std::vector<std::pair<std::string, std::string>> cases = {{"bert-tiny-ner", "token_logits"},
                                                                    {"bert-tiny-qa", "qa_logits"},
                                                                    {"bert-tiny", "sequence_logits"},
                                                                    {"bert-tiny-mlm", "mlm_logits"}};
    for (const auto& [model_name, output] : cases) {
      auto pretrained = make_pretrained_model(find_model(model_name), folder.path(), std::nullopt, 0);
      EXPECT_EQ(pretrained.load.weights_file, (folder.path() / weights).string());
      EXPECT_TRUE(pretrained.load.fresh.empty()) << model_name;
      pretrained.network->eval();
      const auto logits = pretrained.network->forward_batch(batch);
      EXPECT_LT(max_difference(logits, reference.at(output)), 1e-5) << model_name;
    }
  }
}

TEST_F(HfCheckpointTest, ReportsUnusedTensorsAsHfDoes) {
  auto pretrained = make_pretrained_model(find_model("bert-tiny-ner"), dir(), std::nullopt, 0);
  std::sort(pretrained.load.unused.begin(), pretrained.load.unused.end());
  EXPECT_EQ(
      pretrained.load.unused,
      (std::vector<std::string>{"bert.embeddings.position_ids", "bert.pooler.dense.bias", "bert.pooler.dense.weight",
                                "cls.predictions.bias", "cls.predictions.transform.LayerNorm.bias",
                                "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.dense.bias",
                                "cls.predictions.transform.dense.weight", "cls.seq_relationship.bias",
                                "cls.seq_relationship.weight", "qa_outputs.bias", "qa_outputs.weight"}));
  // 5 embedding tensors, 16 per layer, the classifier's 2.
  EXPECT_EQ(pretrained.load.loaded_tensors, 5 + 2 * 16 + 2);
  EXPECT_EQ(pretrained.config.vocab_size, 1200);
  EXPECT_EQ(pretrained.config.max_positions, 64);
}

TEST_F(HfCheckpointTest, TheMaskedLmHeadLoadsWithItsDecoderTiedInBothFormats) {
  // model.safetensors leaves the tied decoder out, as HF's save_pretrained does; pytorch_model.bin
  // holds it beside the tensors it is tied to. Either way the model holds each tensor once.
  for (const std::string weights : {"model.safetensors", "pytorch_model.bin"}) {
    SCOPED_TRACE(weights);
    testing::TempDir folder;
    folder_with(weights, folder);
    auto pretrained = make_pretrained_model(find_model("bert-tiny-mlm"), folder.path(), std::nullopt, 0);
    EXPECT_TRUE(pretrained.load.fresh.empty());
    // 5 embedding tensors, 16 per layer, the transform's 4 and the decoder bias.
    EXPECT_EQ(pretrained.load.loaded_tensors, 5 + 2 * 16 + 5);
    std::sort(pretrained.load.unused.begin(), pretrained.load.unused.end());
    std::vector<std::string> unused = {"bert.embeddings.position_ids", "bert.pooler.dense.bias",
                                       "bert.pooler.dense.weight"};
    if (weights == "pytorch_model.bin") {
      unused.insert(unused.end(), {"classifier.bias", "classifier.weight", "cls.predictions.decoder.bias",
                                   "cls.predictions.decoder.weight"});
    } else {
      unused.insert(unused.end(), {"classifier.bias", "classifier.weight"});
    }
    unused.insert(unused.end(),
                  {"cls.seq_relationship.bias", "cls.seq_relationship.weight", "qa_outputs.bias", "qa_outputs.weight"});
    EXPECT_EQ(pretrained.load.unused, unused);
    EXPECT_EQ(parameter_count(*pretrained.network), 1200 * 128 + 64 * 128 + 2 * 128 + 2 * 128 +
                                                        2 * (4 * 128 * 128 + 2 * 128 * 512 + 9 * 128 + 512) +
                                                        128 * 128 + 128 + 2 * 128 + 1200);
  }
}

TEST_F(HfCheckpointTest, ADecoderCopyStandsInForItsTensorOrMustEqualIt) {
  auto weights = read_torch_state_dict(dir() / "pytorch_model.bin");
  const auto bias = weights.at("cls.predictions.bias").clone();
  // Only the decoder's copy of the bias: it fills the head's bias.
  auto copy_only = weights;
  copy_only.erase("cls.predictions.bias");
  auto config = bert_tiny_config();
  BertForMaskedLM model(config);
  const auto load = load_hf_bert_weights(*model, copy_only, 0.02, 0, "w.bin");
  EXPECT_TRUE(load.fresh.empty());
  EXPECT_TRUE(torch::equal(model->named_parameters()["mlm_bias"], bias));
  // An untied decoder (tie_word_embeddings false) cannot be held.
  auto untied = weights;
  untied["cls.predictions.decoder.weight"] = untied.at("cls.predictions.decoder.weight").clone() + 1;
  BertForMaskedLM other(config);
  EXPECT_THAT([&] { load_hf_bert_weights(*other, untied, 0.02, 0, "w.bin"); },
              ::testing::ThrowsMessage<CheckpointError>(
                  HasSubstr("w.bin: tensor 'cls.predictions.decoder.weight' differs from "
                            "'bert.embeddings.word_embeddings.weight', to which jetchar's masked-LM decoder is tied")));
  auto misshaped = weights;
  misshaped["cls.predictions.decoder.bias"] = torch::zeros({7});
  EXPECT_THAT([&] { load_hf_bert_weights(*other, misshaped, 0.02, 0, "w.bin"); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
                  "tensor 'cls.predictions.decoder.bias' [7] (Float) cannot be the model's mlm_bias [1200]")));
}

TEST_F(HfCheckpointTest, AMaskedLmHeadACheckpointLacksStartsAsHfInitialisesIt) {
  auto weights = read_safetensors(dir() / "model.safetensors");
  for (auto it = weights.begin(); it != weights.end();) {
    it = it->first.starts_with("cls.") ? weights.erase(it) : std::next(it);
  }
  BertForMaskedLM model(bert_tiny_config());
  const auto load = load_hf_bert_weights(*model, weights, 0.5, 3, "bare.safetensors");
  EXPECT_EQ(load.fresh, (std::vector<std::string>{"mlm_bias", "mlm_transform.weight", "mlm_transform.bias",
                                                  "mlm_norm.weight", "mlm_norm.bias"}));
  const auto parameters = model->named_parameters();
  EXPECT_EQ(parameters["mlm_bias"].abs().max().item<double>(), 0.0);
  EXPECT_EQ(parameters["mlm_transform.bias"].abs().max().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(parameters["mlm_norm.weight"], torch::ones({128})));
  EXPECT_EQ(parameters["mlm_norm.bias"].abs().max().item<double>(), 0.0);
  EXPECT_NEAR(parameters["mlm_transform.weight"].std().item<double>(), 0.5, 0.02);
}

TEST_F(HfCheckpointTest, FreshHeadsAreInitialisedAsHfDoes) {
  auto weights = read_safetensors(dir() / "model.safetensors");
  for (const char* name : {"classifier.weight", "classifier.bias", "qa_outputs.weight", "qa_outputs.bias",
                           "bert.pooler.dense.weight", "bert.pooler.dense.bias"}) {
    weights.erase(name);
  }
  auto model = BertForSequenceClassification(bert_tiny_config(), 3);
  const auto load = load_hf_bert_weights(*model, weights, 0.5, 7, "w.safetensors");
  EXPECT_EQ(load.fresh, (std::vector<std::string>{"bert.pooler.weight", "bert.pooler.bias", "classifier.weight",
                                                  "classifier.bias"}));
  const auto parameters = model->named_parameters();
  EXPECT_EQ(parameters["classifier.bias"].abs().max().item<double>(), 0.0);
  // 128 x 128 pooler draws from N(0, 0.5): the sample deviation is 0.5 within a few percent.
  const auto pooler = parameters["bert.pooler.weight"];
  EXPECT_NEAR(pooler.std().item<double>(), 0.5, 0.02);
  EXPECT_NEAR(pooler.mean().item<double>(), 0.0, 0.02);
  // The same seed gives the same head.
  auto again = BertForSequenceClassification(bert_tiny_config(), 3);
  load_hf_bert_weights(*again, weights, 0.5, 7, "w.safetensors");
  EXPECT_TRUE(torch::equal(again->named_parameters()["classifier.weight"], parameters["classifier.weight"]));
}

TEST_F(HfCheckpointTest, MissingUnknownOrMisShapedTensorsAreNamed) {
  const auto weights = read_safetensors(dir() / "model.safetensors");
  auto missing = weights;
  missing.erase("bert.encoder.layer.1.attention.self.key.bias");
  EXPECT_THAT(load_error(missing), HasSubstr("no tensor for the model's bert.layer1.key.bias [128]"));

  auto unknown = weights;
  unknown.emplace("bert.encoder.layer.0.attention.self.qkv.weight", torch::zeros({384, 128}));
  EXPECT_THAT(
      load_error(unknown),
      HasSubstr("tensor 'bert.encoder.layer.0.attention.self.qkv.weight' [384, 128] is not a parameter of BERT"));

  auto extra_layer = weights;
  extra_layer.emplace("bert.encoder.layer.2.output.dense.bias", torch::zeros({128}));
  EXPECT_THAT(load_error(extra_layer),
              HasSubstr("'bert.encoder.layer.2.output.dense.bias' has no place in this model"));

  auto misshaped = weights;
  misshaped["bert.encoder.layer.0.intermediate.dense.weight"] = torch::zeros({512, 64});
  EXPECT_THAT(load_error(misshaped),
              HasSubstr("tensor 'bert.encoder.layer.0.intermediate.dense.weight' has shape [512, 64], but the model's "
                        "bert.layer0.intermediate.weight has shape [512, 128]"));

  auto integer = weights;
  integer["bert.embeddings.LayerNorm.weight"] = torch::zeros({128}, torch::kLong);
  EXPECT_THAT(load_error(integer), HasSubstr("'bert.embeddings.LayerNorm.weight' has dtype Long"));

  auto twice = weights;
  twice.emplace("bert.embeddings.LayerNorm.gamma", torch::zeros({128}));
  EXPECT_THAT(load_error(twice), HasSubstr("both hold bert.embedding_norm.weight"));
}

TEST_F(HfCheckpointTest, HalfPrecisionCheckpointsAreWidened) {
  auto weights = read_safetensors(dir() / "model.safetensors");
  for (auto& [name, tensor] : weights) {
    if (tensor.is_floating_point()) tensor = tensor.to(torch::kHalf);
  }
  auto model = BertForTokenClassification(bert_tiny_config(), 9);
  load_hf_bert_weights(*model, weights, 0.02, 0, "w.safetensors");
  const auto loaded = model->named_parameters()["bert.layer0.query.weight"];
  EXPECT_EQ(loaded.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(loaded, weights.at("bert.encoder.layer.0.attention.self.query.weight").to(torch::kFloat)));
}

TEST_F(HfCheckpointTest, AModelOfAnotherSizeOrKindIsRefused) {
  EXPECT_THAT([&] { make_pretrained_model(find_model("bert-base-ner"), dir(), std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
                  "describes 2 layers, hidden 128, 2 heads, intermediate 512; bert-base has 12 layers, hidden 768")));
  EXPECT_THAT([&] { make_pretrained_model(find_model("lenet5"), dir(), std::nullopt, 0); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("lenet5 is not a BERT model")));
  testing::TempDir empty;
  EXPECT_THAT([&] { make_pretrained_model(find_model("bert-tiny-ner"), empty.path(), std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("config.json cannot be read")));
  std::filesystem::copy_file(dir() / "config.json", empty.path() / "config.json");
  EXPECT_THAT([&] { make_pretrained_model(find_model("bert-tiny-ner"), empty.path(), std::nullopt, 0); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("neither model.safetensors nor pytorch_model.bin")));
}

TEST_F(HfCheckpointTest, ABinThatIsNotAStateDictIsRefused) {
  testing::TempDir folder;
  const auto path = folder.write("pytorch_model.bin", "not a zip");
  EXPECT_THAT([&] { read_torch_state_dict(path); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("is not a state dict torch.save wrote")));
}

TEST(HfBertConfigTest, ReadsFieldsAndDefaultsAndRefusesOtherArchitectures) {
  const auto config = parse_hf_bert_config(
      R"({"hidden_size": 256, "num_attention_heads": 4, "vocab_size": 28996, "id2label": {"1": "B-PER", "0": "O"}})",
      "c.json");
  EXPECT_EQ(config.hidden_size, 256);
  EXPECT_EQ(config.vocab_size, 28996);
  EXPECT_EQ(config.num_hidden_layers, 12);
  EXPECT_EQ(config.labels, (std::vector<std::string>{"O", "B-PER"}));
  EXPECT_DOUBLE_EQ(config.initializer_range, 0.02);
  auto error = [](const char* json) {
    try {
      parse_hf_bert_config(json, "c.json");
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"({"model_type": "roberta"})"),
              HasSubstr("c.json: model_type is \"roberta\"; jetchar builds 'bert', 'distilbert' and 'electra'"));
  EXPECT_THAT(error(R"({"hidden_act": "relu"})"), HasSubstr("hidden_act is \"relu\""));
  EXPECT_THAT(error(R"({"position_embedding_type": "relative_key"})"), HasSubstr("position_embedding_type"));
  EXPECT_THAT(error(R"({"hidden_size": "768"})"), HasSubstr("hidden_size is \"768\"; valid: an integer"));
  EXPECT_THAT(error(R"({"hidden_size": 100})"),
              HasSubstr("hidden_size 100 is not a multiple of num_attention_heads 12"));
  EXPECT_THAT(error(R"({"hidden_dropout_prob": 1.5})"),
              HasSubstr("hidden_dropout_prob is 1.5; valid: a number from 0 to 1"));
  EXPECT_THAT(error(R"({"id2label": {"0": "O", "2": "X"}})"), HasSubstr("id2label entry \"2\""));
  EXPECT_THAT(error(R"({"id2label": {"0": ""}})"), HasSubstr("id2label entry \"0\""));
  EXPECT_THAT(error("[1,"), HasSubstr("c.json: not JSON"));
}

}  // namespace
}  // namespace jetchar::experiments
