// config.json of a Hugging Face BERT, DistilBERT or ELECTRA model folder, read without LibTorch.
// model_type "bert" (or none) reads HF's BertConfig fields and defaults
// (transformers/models/bert/configuration_bert.py); model_type "distilbert" reads DistilBertConfig's
// (transformers/models/distilbert/configuration_distilbert.py: dim, n_layers, n_heads, hidden_dim,
// dropout, attention_dropout, activation, sinusoidal_pos_embds, qa_dropout, seq_classif_dropout,
// with hidden_size, num_hidden_layers and num_attention_heads read as the aliases its attribute_map
// makes them) into the same fields; model_type "electra" reads ElectraConfig's
// (transformers/models/electra/configuration_electra.py: BERT's fields with the small
// discriminator's defaults, hidden 256, 4 heads, intermediate 1024, and embedding_size 128).
// A field left out takes the class's default. jetchar's encoder
// is the absolute-position, GELU(erf) BERT, so a config asking for another model_type,
// position_embedding_type or activation is refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::experiments {

enum class HfModelType { kBert, kDistilBert, kElectra };

struct HfBertConfig {
  HfModelType model_type = HfModelType::kBert;
  std::int64_t vocab_size = 30522;
  std::int64_t hidden_size = 768;
  /// ELECTRA's embedding_size (the embedding tables' width); BERT's and DistilBERT's are hidden_size.
  std::int64_t embedding_size = 768;
  std::int64_t num_hidden_layers = 12;
  std::int64_t num_attention_heads = 12;
  std::int64_t intermediate_size = 3072;
  std::int64_t max_position_embeddings = 512;
  std::int64_t type_vocab_size = 2;
  std::string hidden_act = "gelu";
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  double initializer_range = 0.02;
  /// DistilBERT's LayerNorms hard-code 1e-12 (modeling_distilbert.py); its config has no field.
  double layer_norm_eps = 1e-12;
  /// DistilBERT's sinusoidal_pos_embds; BERT's positions are always learned.
  bool sinusoidal_positions = false;
  /// Dropout before the sequence classifier: BERT's hidden_dropout_prob, DistilBERT's
  /// seq_classif_dropout (default 0.2).
  double sequence_dropout = 0.1;
  /// Dropout before the question-answering head: none in BertForQuestionAnswering, DistilBERT's
  /// qa_dropout (default 0.1).
  double qa_dropout = 0.0;
  /// id2label in id order; empty when the config has none.
  std::vector<std::string> labels;
};

/// "bert", "distilbert" or "electra", as config.json spells it.
const char* hf_model_type_name(HfModelType type);

/// Throws CheckpointError naming `source` and the field for a value of the wrong type or range,
/// or an architecture jetchar does not build.
HfBertConfig parse_hf_bert_config(std::string_view json_text, std::string_view source);
/// Reads DIR/config.json.
HfBertConfig read_hf_bert_config(const std::filesystem::path& model_dir);

}  // namespace jetchar::experiments
