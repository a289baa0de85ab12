#include "experiments/models/electra.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

namespace {

constexpr std::int64_t kIgnoredLabel = -100;

BertConfig electra_encoder(std::string name, std::int64_t embedding, std::int64_t hidden, std::int64_t heads,
                           std::int64_t intermediate) {
  BertConfig config;
  config.name = std::move(name);
  config.family = BertFamily::kElectra;
  config.embedding_size = embedding;
  config.hidden = hidden;
  config.layers = 12;
  config.heads = heads;
  config.intermediate = intermediate;
  config.pooler = false;  // ElectraModel has none
  return config;
}

}  // namespace

const std::vector<std::string>& electra_config_names() {
  static const std::vector<std::string> names = {"electra-small", "electra-base"};
  return names;
}

ElectraConfig electra_config(std::string_view name) {
  if (name == "electra-small") {
    return {electra_encoder("electra-small", 128, 256, 4, 1024),
            electra_encoder("electra-small-generator", 128, 256, 4, 1024)};
  }
  if (name == "electra-base") {
    return {electra_encoder("electra-base", 768, 768, 12, 3072),
            electra_encoder("electra-base-generator", 768, 256, 4, 1024)};
  }
  throw std::invalid_argument(
      fmt::format("unknown ELECTRA configuration '{}'; valid: {}", name, fmt::join(electra_config_names(), ", ")));
}

// Module names are what experiments/checkpoints/hf_electra_names.h maps HF's onto: `bert` the
// discriminator's ElectraModel (`electra`), `discriminator_dense`/`discriminator_prediction` its
// `discriminator_predictions.{dense,dense_prediction}`; the generator's encoder, head and decoder
// bias are jetchar's own (`generator`, `generator_dense`, `generator_norm`, `generator_bias`).
ElectraForPreTrainingImpl::ElectraForPreTrainingImpl(ElectraConfig config) : config_(std::move(config)) {
  auto& d = config_.discriminator;
  auto& g = config_.generator;
  d.pooler = g.pooler = false;
  // Shared embeddings: the generator's are the discriminator's.
  g.vocab_size = d.vocab_size;
  g.embedding_size = d.embedding_width();
  g.max_positions = d.max_positions;
  g.type_vocab_size = d.type_vocab_size;
  discriminator_ = register_module("bert", BertModel(d));
  generator_ = register_module("generator", BertModel(g, /*with_embeddings=*/false));
  discriminator_dense_ = register_module("discriminator_dense", torch::nn::Linear(d.hidden, d.hidden));
  discriminator_prediction_ = register_module("discriminator_prediction", torch::nn::Linear(d.hidden, 1));
  const auto width = d.embedding_width();
  generator_dense_ = register_module("generator_dense", torch::nn::Linear(g.hidden, width));
  generator_norm_ = register_module("generator_norm",
                                    torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(g.layer_norm_eps)));
  generator_bias_ = register_parameter("generator_bias", torch::zeros({d.vocab_size}));
  // Pretraining starts from HF's initialisation, as BertForMaskedLM does (bert_masked_lm.h).
  initialise_as_hf(*this);
}

torch::Tensor ElectraForPreTrainingImpl::generator_scores(const torch::Tensor& hidden) {
  auto transformed = generator_norm_(torch::gelu(counted(generator_dense_, hidden)));
  return counted_linear(transformed, discriminator_->word_embedding_weight(), generator_bias_);
}

torch::Tensor ElectraForPreTrainingImpl::discriminate(const loaders::Batch& batch) {
  auto hidden = discriminator_(batch.inputs, batch.attention_mask, batch.token_type_ids);
  return counted(discriminator_prediction_, torch::gelu(counted(discriminator_dense_, hidden))).squeeze(-1);
}

torch::Tensor ElectraForPreTrainingImpl::generate(const loaders::Batch& batch) {
  auto embedded = discriminator_->embed(batch.inputs, batch.token_type_ids);
  return generator_scores(generator_->encode(embedded, batch.attention_mask));
}

torch::Tensor ElectraForPreTrainingImpl::forward_batch(const loaders::Batch& batch) {
  namespace F = torch::nn::functional;
  const auto masked = batch.targets.ne(kIgnoredLabel);
  // The generator scores the vocabulary at the masked positions only, as ELECTRA's does: the
  // decoder is the largest layer, and the other positions have no loss.
  auto embedded = discriminator_->embed(batch.inputs, batch.token_type_ids);
  auto generator_hidden = generator_->encode(embedded, batch.attention_mask);
  auto scores = generator_scores(generator_hidden.index({masked})).to(torch::kFloat32);  // [M, V]
  const auto originals_at_masked = batch.targets.index({masked});
  auto generator_loss =
      F::cross_entropy(scores, originals_at_masked, F::CrossEntropyFuncOptions().reduction(torch::kNone));
  auto corrupted = batch.inputs.clone();
  if (scores.size(0) > 0) {
    torch::NoGradGuard no_grad;
    corrupted.index_put_({masked}, torch::multinomial(torch::softmax(scores.detach(), -1), 1).squeeze(1));
  }
  const auto originals = torch::where(masked, batch.targets, batch.inputs);
  auto replaced = corrupted.ne(originals).to(torch::kFloat32);
  loaders::Batch corrupted_batch = batch;
  corrupted_batch.inputs = corrupted;
  auto logits = discriminate(corrupted_batch).to(torch::kFloat32);
  auto per_token_generator_loss = torch::zeros_like(logits).masked_scatter(masked, generator_loss);
  return torch::stack({logits, replaced, per_token_generator_loss}, -1);
}

}  // namespace jetchar::experiments
