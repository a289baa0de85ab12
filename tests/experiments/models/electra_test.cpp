#include "experiments/models/electra.h"

#include <gtest/gtest.h>

#include <cmath>

#include "experiments/models/registry.h"

namespace jetchar::experiments {
namespace {

// Token ids in [5, vocabulary), about a third of them masked (targets hold the originals there).
loaders::Batch masked_tokens(std::int64_t batch, std::int64_t length, std::int64_t vocabulary) {
  loaders::Batch b;
  b.inputs = torch::randint(5, vocabulary, {batch, length}, torch::kLong);
  b.attention_mask = torch::ones({batch, length}, torch::kLong);
  b.token_type_ids = torch::zeros({batch, length}, torch::kLong);
  auto masked = torch::rand({batch, length}).lt(0.3);
  masked[0][1] = true;
  b.targets = torch::where(masked, b.inputs, torch::full_like(b.inputs, -100));
  b.inputs = torch::where(masked, torch::full_like(b.inputs, 4), b.inputs);  // [MASK]
  return b;
}

// electra-small's widths with `layers` layers per encoder and a `vocabulary` of its own: fast to run.
ElectraConfig shallow_electra_small(std::int64_t layers, std::int64_t vocabulary) {
  auto config = electra_config("electra-small");
  config.discriminator.vocab_size = vocabulary;
  config.discriminator.layers = config.generator.layers = layers;
  return config;
}

std::int64_t count_where(const torch::nn::Module& module, bool generator) {
  std::int64_t count = 0;
  for (const auto& item : module.named_parameters()) {
    if (item.key().starts_with("generator") == generator) count += item.value().numel();
  }
  return count;
}

TEST(ElectraTest, ParameterCountsAreHuggingFacesWithTheEmbeddingsShared) {
  // HF ElectraForPreTraining: ElectraModel (embeddings, projection, layers; no pooler) and the
  // discriminator head H² + H + H + 1. 13,549,057 for electra-small, 109,483,009 for electra-base,
  // computed from the architecture with torch.nn modules (transformers is not installed here);
  // ElectraModel alone plus a pooler is Keras-hub's 13,548,800 and 109,482,240 for the same models.
  const auto small = make_model(find_model("electra-small"));
  const auto base = make_model(find_model("electra-base"));
  EXPECT_EQ(count_where(*small, false), 13'549'057);
  EXPECT_EQ(count_where(*base, false), 109'483'009);
  // The generators add their layers, projection and head, not the shared embeddings: HF
  // ElectraForMaskedLM has 13,546,682 for electra-small-generator, whose embeddings
  // ((30522 + 512 + 2) × 128 + 256) are the discriminator's here; electra-base-generator's
  // 33,740,602 less its 23,837,184.
  EXPECT_EQ(count_where(*small, true), 13'546'682 - 3'972'864);
  EXPECT_EQ(count_where(*base, true), 33'740'602 - 23'837'184);
  EXPECT_EQ(parameter_count(*small), 13'549'057 + 13'546'682 - 3'972'864);
  // ElectraForQuestionAnswering: ElectraModel and qa_outputs (2H + 2).
  EXPECT_EQ(parameter_count(*make_model(find_model("electra-small-qa"))), 13'483'008 + 514);
  EXPECT_EQ(parameter_count(*make_model(find_model("electra-base-qa"))), 108'891'648 + 1'538);
  EXPECT_EQ(find_model("electra-small").task, Task::kReplacedTokenDetection);
  EXPECT_EQ(task_name(Task::kReplacedTokenDetection), "replaced-token-detection");
  EXPECT_TRUE(find_model("electra-base").pretrains());
  EXPECT_FALSE(find_model("electra-base-qa").pretrains());
  const auto parameters = small->named_parameters();
  EXPECT_NE(parameters.find("bert.embeddings_project.weight"), nullptr);
  EXPECT_NE(parameters.find("generator.embeddings_project.weight"), nullptr);  // 128 -> 256 as well
  EXPECT_EQ(parameters.find("generator.word_embeddings.weight"), nullptr);
  EXPECT_EQ(base->named_parameters().find("bert.embeddings_project.weight"), nullptr);  // E = H = 768
}

TEST(ElectraTest, TheGeneratorReplacesOnlyMaskedTokensAndTheOutputCarriesTheLosses) {
  torch::manual_seed(3);
  ElectraForPreTraining model(shallow_electra_small(2, 40));
  auto batch = masked_tokens(3, 10, 40);
  const auto output = model->forward_batch(batch);
  ASSERT_EQ(output.sizes(), (std::vector<std::int64_t>{3, 10, 3}));
  const auto masked = batch.targets.ne(-100);
  const auto replaced = output.select(2, 1);
  const auto generator_loss = output.select(2, 2);
  // Unmasked tokens are never replaced and carry no generator loss; masked ones carry a positive one.
  EXPECT_EQ(replaced.masked_select(masked.logical_not()).abs().sum().item<double>(), 0.0);
  EXPECT_EQ(generator_loss.masked_select(masked.logical_not()).abs().sum().item<double>(), 0.0);
  EXPECT_GT(generator_loss.masked_select(masked).min().item<double>(), 0.0);
  // From HF's initialisation the generator's samples are near uniform over 40 tokens: most masked
  // tokens are replaced.
  EXPECT_GT(replaced.masked_select(masked).mean().item<double>(), 0.7);
  // The loss reaches both encoders and the shared embeddings.
  const auto loss = task_loss(Task::kReplacedTokenDetection, output, batch);
  loss.backward();
  const auto parameters = model->named_parameters();
  for (const char* name : {"bert.word_embeddings.weight", "bert.layer1.query.weight", "discriminator_prediction.weight",
                           "generator.layer1.query.weight", "generator_dense.weight", "generator_bias"}) {
    EXPECT_GT(parameters[name].grad().abs().sum().item<double>(), 0.0) << name;
  }
}

TEST(ElectraTest, LossIsTheGeneratorsPlusFiftyTimesTheDiscriminatorsAndAccuracyIsTheDiscriminators) {
  loaders::Batch batch;
  batch.inputs = torch::zeros({1, 4}, torch::kLong);
  batch.targets = torch::tensor({{-100, 7, 8, -100}}, torch::kLong);
  batch.attention_mask = torch::tensor({{1, 1, 1, 0}}, torch::kLong);  // the last token is padding
  // Per token: logit, replaced, generator cross-entropy.
  const auto output =
      torch::tensor({{{2.0F, 0.0F, 0.0F}, {-1.0F, 1.0F, 0.5F}, {3.0F, 1.0F, 1.5F}, {9.0F, 0.0F, 0.0F}}});
  const auto bce = [](double logit, double label) {
    const double p = 1 / (1 + std::exp(-logit));
    return -(label * std::log(p) + (1 - label) * std::log(1 - p));
  };
  const double discriminator = (bce(2, 0) + bce(-1, 1) + bce(3, 1)) / 3;
  const double generator = (0.5 + 1.5) / 2;
  EXPECT_NEAR(task_loss(Task::kReplacedTokenDetection, output, batch).item<double>(), generator + 50 * discriminator,
              1e-5);
  // Token 0 called replaced (wrong), token 1 called original (wrong), token 2 right; padding not judged.
  const auto score = task_score(Task::kReplacedTokenDetection, output, batch);
  EXPECT_EQ(score.correct, 1);
  EXPECT_EQ(score.total, 3);
}

TEST(ElectraTest, TheGeneratorHeadIsDenseGeluLayerNormAndTheTiedDecoder) {
  torch::manual_seed(5);
  ElectraForPreTraining model(shallow_electra_small(1, 30));
  model->eval();
  torch::NoGradGuard no_grad;
  const auto batch = masked_tokens(2, 6, 30);
  const auto p = model->named_parameters();
  const auto scores = model->generate(batch);
  ASSERT_EQ(scores.sizes(), (std::vector<std::int64_t>{2, 6, 30}));
  auto& generator_encoder = *model->named_children()["generator"]->as<BertModel>();
  auto& discriminator_encoder = *model->named_children()["bert"]->as<BertModel>();
  // The generator's encoder on the shared embeddings, then the head written out from the parameters.
  auto encoded =
      generator_encoder.encode(discriminator_encoder.embed(batch.inputs, batch.token_type_ids), batch.attention_mask);
  namespace F = torch::nn::functional;
  auto transformed = F::layer_norm(
      torch::gelu(F::linear(encoded, p["generator_dense.weight"], p["generator_dense.bias"])),
      F::LayerNormFuncOptions({128}).weight(p["generator_norm.weight"]).bias(p["generator_norm.bias"]).eps(1e-12));
  auto expected = F::linear(transformed, p["bert.word_embeddings.weight"], p["generator_bias"]);
  EXPECT_LT((scores - expected).abs().max().item<double>(), 1e-5);
}

TEST(ElectraTest, StartsFromHuggingFacesInitialisation) {
  torch::manual_seed(0);
  ElectraForPreTraining model(shallow_electra_small(2, 30522));
  const auto p = model->named_parameters();
  EXPECT_NEAR(p["bert.word_embeddings.weight"].std().item<double>(), 0.02, 0.001);
  EXPECT_NEAR(p["generator.layer1.query.weight"].std().item<double>(), 0.02, 0.002);
  EXPECT_EQ(p["generator_bias"].abs().max().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(p["generator_norm.weight"], torch::ones({128})));
  // So the first loss is about ln(vocabulary) + 50 ln 2: a uniform generator, an undecided discriminator.
  model->eval();
  auto batch = masked_tokens(4, 16, 30522);
  const double loss = task_loss(Task::kReplacedTokenDetection, model->forward_batch(batch), batch).item<double>();
  EXPECT_NEAR(loss, std::log(30522.0) + 50 * std::log(2.0), 1.0);
}

TEST(ElectraTest, SyntheticBatchesAndMacsCountBothEncoders) {
  const auto& electra = find_model("electra-small");
  const auto batch = synthetic_batch(electra, 2, electra.default_classes, {32}, 3);
  EXPECT_EQ(batch.targets.sizes(), (std::vector<std::int64_t>{2, 32}));
  // Two 12-layer encoders of hidden 256 at least: each layer's linears are 4H² + 2HI per token.
  EXPECT_GT(macs_per_sample(electra), std::int64_t{2} * 12 * 128 * (4 * 256 * 256 + 2 * 256 * 1024));
}

}  // namespace
}  // namespace jetchar::experiments
