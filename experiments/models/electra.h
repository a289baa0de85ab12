// ELECTRA pretraining (Clark et al., 2020, "ELECTRA: Pre-training Text Encoders as Discriminators
// Rather Than Generators"), with Hugging Face's module layout (transformers/models/electra/
// modeling_electra.py). Two encoders train jointly on a masked corpus:
//
// - the generator, a small masked LM (HF's ElectraForMaskedLM): its encoder, then per masked
//   position `generator_predictions` (dense H_g -> E, GELU(erf), LayerNorm(E)) and the decoder to
//   one score per vocabulary token, whose weight is the word embedding table (tied) with a bias of
//   its own (`generator_lm_head.bias`);
// - the discriminator (HF's ElectraForPreTraining): its encoder reads the corrupted sequence (each
//   masked position holds a token sampled from the generator's softmax, without gradient), then per
//   position `discriminator_predictions` (dense H -> H, GELU, dense H -> 1): the logit that the
//   token was replaced. A sampled token equal to the original counts as original, as in the paper.
//
// The generator shares the discriminator's embeddings (word, position and token-type tables and
// their LayerNorm: the paper's shared embeddings; each encoder projects them to its hidden size
// when the widths differ). The loss is the generator's masked-LM cross-entropy plus
// λ = 50 times the discriminator's mean binary cross-entropy over the tokens (not the padding):
// network.h's Task::kReplacedTokenDetection.
//
// Sizes: the discriminators of google/electra-small-discriminator (E 128, H 256, 12 layers, 4
// heads, intermediate 1024) and google/electra-base-discriminator (E = H = 768, 12 layers, 12
// heads, 3072), each with the generator released beside it (google/electra-{small,base}-generator:
// H 256, 4 heads, intermediate 1024, 12 layers). HF ElectraForPreTraining has 13,549,057
// parameters for small and 109,483,009 for base; the generators add their encoder, projection and
// head without the shared embeddings (tests/experiments/models/electra_test.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "experiments/models/bert.h"
#include "experiments/models/network.h"

namespace jetchar::experiments {

struct ElectraConfig {
  BertConfig discriminator;
  /// The generator's encoder: the discriminator's embeddings (E, vocabulary, positions, token
  /// types), its own hidden size, heads, intermediate size and layers.
  BertConfig generator;
};

/// electra-small, electra-base. Throws std::invalid_argument naming the valid ones.
ElectraConfig electra_config(std::string_view name);
const std::vector<std::string>& electra_config_names();

class ElectraForPreTrainingImpl : public Network {
 public:
  explicit ElectraForPreTrainingImpl(ElectraConfig config);
  Task task() const override { return Task::kReplacedTokenDetection; }
  /// [B, L, 3] per token (network.h): the discriminator's logit on the corrupted sequence, 1 where
  /// the generator's sample replaced the original token, the generator's cross-entropy at masked
  /// positions (0 elsewhere).
  torch::Tensor forward_batch(const loaders::Batch& batch) override;
  /// The discriminator's replaced-token logits [B, L] for the batch's inputs as they are.
  torch::Tensor discriminate(const loaders::Batch& batch);
  /// The generator's vocabulary scores [B, L, V] at every position of the batch's inputs.
  torch::Tensor generate(const loaders::Batch& batch);
  const ElectraConfig& config() const { return config_; }

 private:
  torch::Tensor generator_scores(const torch::Tensor& hidden);

  ElectraConfig config_;
  BertModel discriminator_{nullptr}, generator_{nullptr};
  torch::nn::Linear discriminator_dense_{nullptr}, discriminator_prediction_{nullptr}, generator_dense_{nullptr};
  torch::nn::LayerNorm generator_norm_{nullptr};
  torch::Tensor generator_bias_;
};
TORCH_MODULE(ElectraForPreTraining);

}  // namespace jetchar::experiments
