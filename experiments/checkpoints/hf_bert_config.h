// config.json of a Hugging Face BERT model folder, read without LibTorch. Field names and
// defaults are HF's BertConfig (transformers/models/bert/configuration_bert.py): a field left out
// takes BertConfig's default. jetchar's encoder is the absolute-position, GELU(erf) BERT, so a
// config asking for another model_type, position_embedding_type or hidden_act is refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::experiments {

struct HfBertConfig {
  std::string model_type = "bert";
  std::int64_t vocab_size = 30522;
  std::int64_t hidden_size = 768;
  std::int64_t num_hidden_layers = 12;
  std::int64_t num_attention_heads = 12;
  std::int64_t intermediate_size = 3072;
  std::int64_t max_position_embeddings = 512;
  std::int64_t type_vocab_size = 2;
  std::string hidden_act = "gelu";
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  double initializer_range = 0.02;
  double layer_norm_eps = 1e-12;
  /// id2label in id order; empty when the config has none.
  std::vector<std::string> labels;
};

/// Throws CheckpointError naming `source` and the field for a value of the wrong type or range,
/// or an architecture jetchar does not build.
HfBertConfig parse_hf_bert_config(std::string_view json_text, std::string_view source);
/// Reads DIR/config.json.
HfBertConfig read_hf_bert_config(const std::filesystem::path& model_dir);

}  // namespace jetchar::experiments
