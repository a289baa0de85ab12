// The BERT encoder (Devlin et al.; HF transformers' BertModel layout), its DistilBERT form
// (no token-type embeddings, no pooler) and its ELECTRA form (HF's ElectraModel: embeddings of
// their own width E, projected to the hidden size H by `embeddings_project` when E ≠ H, no
// pooler). Parameter counts follow 4H²+2HI+9H+I per layer, (V+P+T)·E+2E for the embeddings,
// E·H+H for the projection and H²+H for the pooler: BERT-base 109,482,240 with the pooler,
// DistilBERT 66,362,880, ELECTRA-small's discriminator 13,483,008.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <torch/torch.h>

namespace jetchar::experiments {

/// Which Hugging Face model family a configuration is laid out as (its checkpoints' names).
enum class BertFamily { kBert, kDistilBert, kElectra };

struct BertConfig {
  std::string name;
  BertFamily family = BertFamily::kBert;
  std::int64_t vocab_size = 30522;
  std::int64_t hidden = 768;
  /// ELECTRA's embedding_size: the width of the embedding tables; 0 is the hidden size (BERT).
  std::int64_t embedding_size = 0;
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

  std::int64_t embedding_width() const { return embedding_size > 0 ? embedding_size : hidden; }
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
  /// Without embeddings the encoder reads another's `embed` output (ELECTRA's generator shares the
  /// discriminator's tables); it holds the projection to its own hidden size when the widths differ.
  explicit BertModelImpl(const BertConfig& config, bool with_embeddings = true);
  /// Hidden states [B,L,H]. `attention_mask` (1 = token) and `token_type_ids` may be undefined.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                        const torch::Tensor& token_type_ids = {});
  /// The embeddings' output [B,L,E]: word + position (+ token type), LayerNorm, dropout.
  torch::Tensor embed(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids = {});
  /// Hidden states [B,L,H] of embeddings [B,L,E] (projected first when E ≠ H).
  torch::Tensor encode(const torch::Tensor& embedded, const torch::Tensor& attention_mask = {});
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
  torch::nn::Linear embeddings_project_{nullptr};
  std::vector<BertLayer> layers_;
  torch::nn::Linear pooler_{nullptr};
};
TORCH_MODULE(BertModel);

/// Hugging Face's initialisation (BertPreTrainedModel._init_weights, ElectraPreTrainedModel's
/// alike) of every parameter of `module`: Linear and Embedding weights from N(0, `range`), biases
/// 0, LayerNorm weight 1. A fixed (not trained) sinusoidal position table stays. Draws from the
/// global generator, which a run's seed sets.
void initialise_as_hf(torch::nn::Module& module, double range = 0.02);

}  // namespace jetchar::experiments
