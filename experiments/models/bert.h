// The BERT encoder (Devlin et al.; HF transformers' BertModel layout) and its DistilBERT form
// (no token-type embeddings, no pooler). Parameter counts follow 4H²+2HI+9H+I per layer,
// (V+P+T)·H+2H for the embeddings and H²+H for the pooler: BERT-base 109,482,240 with the
// pooler, DistilBERT 66,362,880.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <torch/torch.h>

namespace jetchar::experiments {

struct BertConfig {
  std::string name;
  std::int64_t vocab_size = 30522;
  std::int64_t hidden = 768;
  std::int64_t layers = 12;
  std::int64_t heads = 12;
  std::int64_t intermediate = 3072;
  std::int64_t max_positions = 512;
  /// DistilBERT's sinusoidal_pos_embds: the position table is sin/cos of the position (HF's
  /// create_sinusoidal_embeddings) and is not trained. BERT and distilbert-base learn theirs.
  bool sinusoidal_positions = false;
  /// 2 for BERT (segment A/B), 0 for DistilBERT.
  std::int64_t type_vocab_size = 2;
  bool pooler = true;
  /// HF's hidden_dropout_prob: after the embeddings, each sublayer and before the task heads.
  double dropout = 0.1;
  /// HF's attention_probs_dropout_prob: on the attention probabilities.
  double attention_dropout = 0.1;
  /// Dropout before the sequence classifier: BERT's hidden_dropout_prob, DistilBERT's seq_classif_dropout.
  double sequence_dropout = 0.1;
  /// Dropout before the question-answering head: none in BERT, DistilBERT's qa_dropout.
  double qa_dropout = 0.0;
  double layer_norm_eps = 1e-12;
};

/// Presets: bert-tiny, bert-mini, bert-small, bert-medium, bert-base, bert-large, distilbert.
/// Throws std::invalid_argument naming the valid ones.
BertConfig bert_config(std::string_view name);
const std::vector<std::string>& bert_config_names();

class BertLayerImpl : public torch::nn::Module {
 public:
  explicit BertLayerImpl(const BertConfig& config);
  /// `mask_bias`: additive attention bias [B,1,1,L] (0 keep, large negative drop) or undefined.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask_bias);

 private:
  std::int64_t heads_;
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr}, attention_out_{nullptr};
  torch::nn::Linear intermediate_{nullptr}, output_{nullptr};
  torch::nn::LayerNorm attention_norm_{nullptr}, output_norm_{nullptr};
  torch::nn::Dropout dropout_{nullptr}, attention_dropout_{nullptr};
};
TORCH_MODULE(BertLayer);

class BertModelImpl : public torch::nn::Module {
 public:
  explicit BertModelImpl(const BertConfig& config);
  /// Hidden states [B,L,H]. `attention_mask` (1 = token) and `token_type_ids` may be undefined.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                        const torch::Tensor& token_type_ids = {});
  /// tanh(W·h_[CLS] + b); only when the config has a pooler.
  torch::Tensor pool(const torch::Tensor& hidden_states);
  const BertConfig& config() const { return config_; }
  /// The word embedding table [V, H]: a masked-LM decoder ties its weight to it, as HF's does.
  const torch::Tensor& word_embedding_weight() const { return word_embeddings_->weight; }

 private:
  BertConfig config_;
  torch::nn::Embedding word_embeddings_{nullptr}, position_embeddings_{nullptr}, token_type_embeddings_{nullptr};
  torch::nn::LayerNorm embedding_norm_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  std::vector<BertLayer> layers_;
  torch::nn::Linear pooler_{nullptr};
};
TORCH_MODULE(BertModel);

}  // namespace jetchar::experiments
