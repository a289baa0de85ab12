#include "experiments/checkpoints/hf_bert_config.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "experiments/checkpoints/checkpoint_error.h"
#include "sysfs/errno_name.h"
#include "sysfs/whole_file.h"

namespace jetchar::experiments {

namespace {

[[noreturn]] void fail(std::string_view source, const std::string& what) {
  throw CheckpointError(fmt::format("{}: {}", source, what));
}

void read_size(const nlohmann::json& config, const char* field, std::int64_t& out, std::string_view source,
               std::int64_t minimum) {
  const auto it = config.find(field);
  if (it == config.end()) return;
  if (!it->is_number_integer() || it->get<std::int64_t>() < minimum || it->get<std::int64_t>() > (1LL << 31)) {
    fail(source, fmt::format("{} is {}; valid: an integer from {} to 2^31", field, it->dump(), minimum));
  }
  out = it->get<std::int64_t>();
}

void read_real(const nlohmann::json& config, const char* field, double& out, std::string_view source, double minimum,
               double maximum) {
  const auto it = config.find(field);
  if (it == config.end()) return;
  if (!it->is_number() || !(it->get<double>() >= minimum && it->get<double>() <= maximum)) {
    fail(source, fmt::format("{} is {}; valid: a number from {} to {}", field, it->dump(), minimum, maximum));
  }
  out = it->get<double>();
}

void read_name(const nlohmann::json& config, const char* field, std::string& out, std::string_view source,
               std::string_view only) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) return;
  if (!it->is_string() || it->get<std::string>() != only) {
    fail(source, fmt::format("{} is {}; jetchar builds only '{}'", field, it->dump(), only));
  }
  out = it->get<std::string>();
}

void read_flag(const nlohmann::json& config, const char* field, bool& out, std::string_view source) {
  const auto it = config.find(field);
  if (it == config.end() || it->is_null()) return;
  if (!it->is_boolean()) fail(source, fmt::format("{} is {}; valid: true or false", field, it->dump()));
  out = it->get<bool>();
}

HfModelType read_model_type(const nlohmann::json& config, std::string_view source) {
  const auto it = config.find("model_type");
  if (it == config.end() || it->is_null()) return HfModelType::kBert;
  if (it->is_string()) {
    for (const auto type : {HfModelType::kBert, HfModelType::kDistilBert, HfModelType::kElectra}) {
      if (it->get_ref<const std::string&>() == hf_model_type_name(type)) return type;
    }
  }
  fail(source, fmt::format("model_type is {}; jetchar builds 'bert', 'distilbert' and 'electra'", it->dump()));
}

// BertConfig's fields (configuration_bert.py). BertForQuestionAnswering has no dropout before qa_outputs.
void read_bert_fields(const nlohmann::json& config, HfBertConfig& result, std::string_view source) {
  read_name(config, "hidden_act", result.hidden_act, source, "gelu");
  std::string position_type;
  read_name(config, "position_embedding_type", position_type, source, "absolute");
  read_size(config, "vocab_size", result.vocab_size, source, 1);
  read_size(config, "hidden_size", result.hidden_size, source, 1);
  read_size(config, "num_hidden_layers", result.num_hidden_layers, source, 1);
  read_size(config, "num_attention_heads", result.num_attention_heads, source, 1);
  read_size(config, "intermediate_size", result.intermediate_size, source, 1);
  read_size(config, "max_position_embeddings", result.max_position_embeddings, source, 1);
  read_size(config, "type_vocab_size", result.type_vocab_size, source, 0);
  read_real(config, "hidden_dropout_prob", result.hidden_dropout_prob, source, 0, 1);
  read_real(config, "attention_probs_dropout_prob", result.attention_probs_dropout_prob, source, 0, 1);
  read_real(config, "initializer_range", result.initializer_range, source, 0, 10);
  read_real(config, "layer_norm_eps", result.layer_norm_eps, source, 0, 1);
  result.sequence_dropout = result.hidden_dropout_prob;
  result.qa_dropout = 0.0;
  result.embedding_size = result.hidden_size;
}

// ElectraConfig's fields: BertConfig's with google/electra-small-discriminator's sizes as defaults,
// and embedding_size. ElectraForQuestionAnswering, like BERT's, has no dropout before qa_outputs.
void read_electra_fields(const nlohmann::json& config, HfBertConfig& result, std::string_view source) {
  result.hidden_size = 256;
  result.num_attention_heads = 4;
  result.intermediate_size = 1024;
  read_bert_fields(config, result, source);
  result.embedding_size = 128;
  read_size(config, "embedding_size", result.embedding_size, source, 1);
}

// DistilBertConfig's fields and defaults (configuration_distilbert.py). Its attribute_map makes
// hidden_size, num_hidden_layers and num_attention_heads aliases of dim, n_layers and n_heads, set
// after them, so an alias present in the file is what HF uses.
void read_distilbert_fields(const nlohmann::json& config, HfBertConfig& result, std::string_view source) {
  result.hidden_size = 768;
  result.num_hidden_layers = 6;
  result.num_attention_heads = 12;
  result.intermediate_size = 3072;
  result.type_vocab_size = 0;
  result.sequence_dropout = 0.2;
  result.qa_dropout = 0.1;
  read_name(config, "activation", result.hidden_act, source, "gelu");
  read_size(config, "vocab_size", result.vocab_size, source, 1);
  read_size(config, "dim", result.hidden_size, source, 1);
  read_size(config, "hidden_size", result.hidden_size, source, 1);
  read_size(config, "n_layers", result.num_hidden_layers, source, 1);
  read_size(config, "num_hidden_layers", result.num_hidden_layers, source, 1);
  read_size(config, "n_heads", result.num_attention_heads, source, 1);
  read_size(config, "num_attention_heads", result.num_attention_heads, source, 1);
  read_size(config, "hidden_dim", result.intermediate_size, source, 1);
  read_size(config, "max_position_embeddings", result.max_position_embeddings, source, 1);
  read_flag(config, "sinusoidal_pos_embds", result.sinusoidal_positions, source);
  read_real(config, "dropout", result.hidden_dropout_prob, source, 0, 1);
  read_real(config, "attention_dropout", result.attention_probs_dropout_prob, source, 0, 1);
  read_real(config, "qa_dropout", result.qa_dropout, source, 0, 1);
  read_real(config, "seq_classif_dropout", result.sequence_dropout, source, 0, 1);
  read_real(config, "initializer_range", result.initializer_range, source, 0, 10);
  result.embedding_size = result.hidden_size;
}

}  // namespace

const char* hf_model_type_name(HfModelType type) {
  switch (type) {
    case HfModelType::kDistilBert: return "distilbert";
    case HfModelType::kElectra: return "electra";
    case HfModelType::kBert: break;
  }
  return "bert";
}

HfBertConfig parse_hf_bert_config(std::string_view json_text, std::string_view source) {
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {
    fail(source, fmt::format("not JSON: {}", e.what()));
  }
  if (!config.is_object()) fail(source, "not a JSON object");
  HfBertConfig result;
  result.model_type = read_model_type(config, source);
  switch (result.model_type) {
    case HfModelType::kDistilBert: read_distilbert_fields(config, result, source); break;
    case HfModelType::kElectra: read_electra_fields(config, result, source); break;
    case HfModelType::kBert: read_bert_fields(config, result, source); break;
  }
  if (result.hidden_size % result.num_attention_heads != 0) {
    const bool distilbert = result.model_type == HfModelType::kDistilBert;
    fail(source, fmt::format("{} {} is not a multiple of {} {}", distilbert ? "dim" : "hidden_size", result.hidden_size,
                             distilbert ? "n_heads" : "num_attention_heads", result.num_attention_heads));
  }
  if (const auto labels = config.find("id2label"); labels != config.end() && !labels->is_null()) {
    if (!labels->is_object()) fail(source, fmt::format("id2label is {}, not an object", labels->dump()));
    result.labels.resize(labels->size());
    for (const auto& [key, value] : labels->items()) {
      std::size_t id = 0;
      std::size_t used = 0;
      try {
        id = std::stoul(key, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != key.size() || id >= result.labels.size() || !value.is_string() ||
          value.get_ref<const std::string&>().empty() || !result.labels[id].empty()) {
        fail(source, fmt::format("id2label entry \"{}\": {} is not one of ids 0..{} mapped once to a label name", key,
                                 value.dump(), labels->size() - 1));
      }
      result.labels[id] = value.get<std::string>();
    }
  }
  return result;
}

HfBertConfig read_hf_bert_config(const std::filesystem::path& model_dir) {
  const auto path = model_dir / "config.json";
  const std::string text = sysfs::read_whole_file(path, [&](const sysfs::IoError& e) {
    return CheckpointError(
        fmt::format("{} cannot be read ({}); a Hugging Face model folder holds config.json, "
                    "vocab.txt and model.safetensors or pytorch_model.bin",
                    path.string(), sysfs::errno_text(e.error_number())));
  });
  return parse_hf_bert_config(text, path.string());
}

}  // namespace jetchar::experiments
