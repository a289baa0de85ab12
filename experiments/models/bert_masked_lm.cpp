#include "experiments/models/bert_masked_lm.h"

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

namespace {

constexpr double kInitializerRange = 0.02;  // HF BertConfig's initializer_range default

}  // namespace

// Module names: `mlm_transform`, `mlm_norm` and `mlm_bias` are what
// experiments/checkpoints/hf_bert_names.h maps HF's cls.predictions.transform.dense,
// cls.predictions.transform.LayerNorm and cls.predictions.bias onto.
BertForMaskedLMImpl::BertForMaskedLMImpl(BertConfig config) {
  config.pooler = false;
  const auto hidden = config.hidden;
  const auto vocab = config.vocab_size;
  const auto eps = config.layer_norm_eps;
  bert_ = register_module("bert", BertModel(std::move(config)));
  transform_ = register_module("mlm_transform", torch::nn::Linear(hidden, hidden));
  transform_norm_ = register_module("mlm_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(eps)));
  // HF's BertLMPredictionHead starts its bias at zeros.
  decoder_bias_ = register_parameter("mlm_bias", torch::zeros({vocab}));
  // Pretraining starts from HF's initialisation (BertPreTrainedModel._init_weights), not LibTorch's:
  // Linear and Embedding weights from N(0, initializer_range = 0.02), biases 0, LayerNorm 1 and 0.
  // LibTorch's N(0, 1) embeddings, being the decoder's weight too, would start the logits at a
  // spread of about sqrt(H) and the loss far above ln(vocabulary). (HF also zeroes the [PAD] row,
  // whose id jetchar's model does not know; it learns like any other.) Draws from the global
  // generator, which the run's seed sets.
  initialise_as_hf(*this, kInitializerRange);
}

torch::Tensor BertForMaskedLMImpl::forward_batch(const loaders::Batch& batch) {
  auto hidden = bert_(batch.inputs, batch.attention_mask, batch.token_type_ids);
  auto transformed = transform_norm_(torch::gelu(counted(transform_, hidden)));
  return counted_linear(transformed, bert_->word_embedding_weight(), decoder_bias_);
}

}  // namespace jetchar::experiments
