// BERT with Hugging Face's masked-LM head (transformers/models/bert/modeling_bert.py:
// BertForMaskedLM, whose `cls.predictions` is BertLMPredictionHead): per position the encoder's
// hidden state goes through the transform (dense H -> H, the config's activation, GELU(erf) for
// every BERT jetchar builds, then LayerNorm), and the decoder maps it to one score per vocabulary
// token with the word embedding table as its weight (tied, as HF ties them when
// tie_word_embeddings is true, its default) and a bias of its own. No pooler, as HF builds it
// (add_pooling_layer=False), and no next-sentence head (BertForPreTraining's cls.seq_relationship).
// A new model starts from HF's initialisation (N(0, 0.02) weights, zero biases, unit LayerNorms),
// as a pretraining run from scratch does.
//
// Parameters: the encoder's without the pooler, then H² + H (transform), 2H (LayerNorm) and V
// (bias): bert-base-mlm has 108,891,648 + 590,592 + 1,536 + 30,522 = 109,514,298, HF
// BertForMaskedLM's count for bert-base-uncased (tests/experiments/models/bert_masked_lm_test.cpp).
#pragma once

#include "experiments/models/bert.h"
#include "experiments/models/network.h"

namespace jetchar::experiments {

class BertForMaskedLMImpl : public Network {
 public:
  explicit BertForMaskedLMImpl(BertConfig config);
  Task task() const override { return Task::kMaskedLanguageModeling; }
  /// Logits [B, L, vocabulary] at every position; the loss reads the masked ones.
  torch::Tensor forward_batch(const loaders::Batch& batch) override;

 private:
  BertModel bert_{nullptr};
  torch::nn::Linear transform_{nullptr};
  torch::nn::LayerNorm transform_norm_{nullptr};
  torch::Tensor decoder_bias_;
};
TORCH_MODULE(BertForMaskedLM);

}  // namespace jetchar::experiments
