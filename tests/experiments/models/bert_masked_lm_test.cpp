#include "experiments/models/bert_masked_lm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "experiments/models/registry.h"

namespace jetchar::experiments {
namespace {

loaders::Batch tokens(std::int64_t batch, std::int64_t length, std::int64_t vocabulary) {
  loaders::Batch b;
  b.inputs = torch::randint(5, vocabulary, {batch, length}, torch::kLong);
  b.attention_mask = torch::ones({batch, length}, torch::kLong);
  b.token_type_ids = torch::zeros({batch, length}, torch::kLong);
  b.targets = torch::full({batch, length}, -100, torch::kLong);
  return b;
}

TEST(BertMaskedLmTest, ParameterCountsAreHuggingFacesBertForMaskedLm) {
  // HF's BertForMaskedLM counts each tied tensor once: the encoder without the pooler, the
  // transform (H² + H), its LayerNorm (2H) and the decoder's bias (V). Computed from the
  // architecture with torch.nn modules (transformers is not installed here): 109,514,298 for
  // bert-base-uncased's sizes, 4,416,698 for bert-tiny's.
  EXPECT_EQ(parameter_count(*make_model(find_model("bert-base-mlm"))), 109'514'298);
  EXPECT_EQ(parameter_count(*make_model(find_model("bert-tiny-mlm"))), 4'416'698);
  EXPECT_EQ(find_model("bert-base-mlm").default_classes, 30522);
  EXPECT_EQ(find_model("bert-tiny-mlm").task, Task::kMaskedLanguageModeling);
  EXPECT_EQ(task_name(Task::kMaskedLanguageModeling), "masked-lm");
  // The classes are the vocabulary: a model for a 100-token vocab.txt.
  const auto small = make_model(find_model("bert-tiny-mlm"), 100);
  EXPECT_EQ(parameter_count(*small), 4'416'698 - (30522 - 100) * (128 + 1));
  EXPECT_THROW(find_model("distilbert-mlm"), std::invalid_argument);
}

TEST(BertMaskedLmTest, TheDecoderIsTiedToTheWordEmbeddings) {
  auto config = bert_config("bert-tiny");
  config.vocab_size = 50;
  BertForMaskedLM model(config);
  const auto parameters = model->named_parameters();
  EXPECT_EQ(parameters.find("bert.pooler.weight"), nullptr);
  const auto logits = model->forward_batch(tokens(2, 8, 50));
  EXPECT_EQ(logits.sizes(), (std::vector<std::int64_t>{2, 8, 50}));
  // A change to the embedding table is a change to the decoder: logits move with it.
  {
    torch::NoGradGuard no_grad;
    model->eval();
    const auto batch = tokens(1, 4, 50);
    const auto before = model->forward_batch(batch);
    parameters["bert.word_embeddings.weight"][7].add_(torch::randn({128}));
    const auto after = model->forward_batch(batch);
    EXPECT_FALSE(torch::allclose(before.select(2, 7), after.select(2, 7)));
  }
  // The tied weight is one parameter, with gradients from both its uses.
  auto batch = tokens(2, 8, 50);
  batch.targets[0][3] = 9;
  auto loss = task_loss(Task::kMaskedLanguageModeling, model->forward_batch(batch), batch);
  loss.backward();
  EXPECT_TRUE(parameters["bert.word_embeddings.weight"].grad()[9].abs().sum().item<double>() > 0);
  EXPECT_TRUE(parameters["mlm_bias"].grad()[9].item<double>() < 0);  // the target's score is pushed up
}

TEST(BertMaskedLmTest, LossAndAccuracyAreOverMaskedPositionsOnly) {
  auto batch = tokens(1, 4, 6);
  batch.targets = torch::tensor({{-100, 2, -100, 4}}, torch::kLong);
  // Position 1 predicts 2 (right), position 3 predicts 0 (wrong); the unscored ones do not count.
  auto logits = torch::zeros({1, 4, 5});
  logits[0][1][2] = 10;
  logits[0][3][0] = 10;
  const auto score = task_score(Task::kMaskedLanguageModeling, logits, batch);
  EXPECT_EQ(score.correct, 1);
  EXPECT_EQ(score.total, 2);
  const double expected =
      (torch::nn::functional::cross_entropy(logits[0][1].unsqueeze(0), torch::tensor({2}, torch::kLong)) +
       torch::nn::functional::cross_entropy(logits[0][3].unsqueeze(0), torch::tensor({4}, torch::kLong)))
          .item<double>() /
      2;
  EXPECT_NEAR(task_loss(Task::kMaskedLanguageModeling, logits, batch).item<double>(), expected, 1e-6);
}

TEST(BertMaskedLmTest, StartsFromHuggingFacesInitialisation) {
  torch::manual_seed(0);
  BertForMaskedLM model(bert_config("bert-tiny"));
  const auto parameters = model->named_parameters();
  EXPECT_NEAR(parameters["bert.word_embeddings.weight"].std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(parameters["bert.layer1.query.weight"].std().item<double>(), 0.02, 0.002);
  EXPECT_NEAR(parameters["mlm_transform.weight"].std().item<double>(), 0.02, 0.002);
  EXPECT_EQ(parameters["bert.layer0.output.bias"].abs().max().item<double>(), 0.0);
  EXPECT_EQ(parameters["mlm_bias"].abs().max().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(parameters["bert.layer0.attention_norm.weight"], torch::ones({128})));
  EXPECT_TRUE(torch::equal(parameters["mlm_norm.weight"], torch::ones({128})));
  // So the first loss is about ln(vocabulary), as a pretraining run starts.
  model->eval();
  auto batch = tokens(4, 16, 30522);
  batch.targets = batch.inputs.clone();
  const double loss = task_loss(Task::kMaskedLanguageModeling, model->forward_batch(batch), batch).item<double>();
  EXPECT_NEAR(loss, std::log(30522.0), 0.2);
}

TEST(BertMaskedLmTest, MacsCountTheDecoder) {
  // Per token: the encoder's linears, the transform H² and the decoder H·V.
  const auto& mlm = find_model("bert-tiny-mlm");
  const auto& ner = find_model("bert-tiny-ner");
  const std::int64_t tokens_per_sample = 128;
  EXPECT_EQ(macs_per_sample(mlm) - (macs_per_sample(ner) - tokens_per_sample * 128 * 9),
            tokens_per_sample * (128 * 128 + 128 * 30522));
  const auto batch = synthetic_batch(mlm, 4, mlm.default_classes, {32}, 3);
  EXPECT_EQ(batch.targets.sizes(), (std::vector<std::int64_t>{4, 32}));
  const auto scored = batch.targets.ne(-100);
  EXPECT_TRUE(torch::equal(batch.targets.masked_select(scored), batch.inputs.masked_select(scored)));
}

}  // namespace
}  // namespace jetchar::experiments
