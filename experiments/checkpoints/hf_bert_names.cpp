#include "experiments/checkpoints/hf_bert_names.h"

#include <charconv>
#include <utility>

namespace jetchar::experiments {

namespace {

bool consume(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// "weight"/"bias" of a Linear or Embedding.
std::optional<std::string> linear_suffix(std::string_view rest) {
  if (rest == "weight" || rest == "bias") return std::string(rest);
  return std::nullopt;
}

// LayerNorm's weight/bias, or gamma/beta in checkpoints converted from TensorFlow.
std::optional<std::string> norm_suffix(std::string_view rest) {
  if (rest == "weight" || rest == "gamma") return std::string("weight");
  if (rest == "bias" || rest == "beta") return std::string("bias");
  return std::nullopt;
}

std::optional<std::string> joined(std::string prefix, std::optional<std::string> suffix) {
  if (!suffix) return std::nullopt;
  return prefix + *suffix;
}

// "N." at the start of `rest` (a layer index without leading zeros) becomes jetchar's "bert.layerN.".
std::optional<std::string> consume_layer(std::string_view& rest) {
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
  if (error != std::errc{} || end == rest.data() || (*rest.data() == '0' && end - rest.data() > 1)) return std::nullopt;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  if (!consume(rest, ".")) return std::nullopt;
  return "bert.layer" + std::to_string(index) + ".";
}

std::optional<std::string> layer_parameter(std::string_view rest) {
  const auto prefix = consume_layer(rest);
  if (!prefix) return std::nullopt;
  const std::string& layer = *prefix;
  for (const std::string_view projection : {"query", "key", "value"}) {
    auto tail = rest;
    if (consume(tail, "attention.self.") && consume(tail, projection) && consume(tail, ".")) {
      return joined(layer + std::string(projection) + ".", linear_suffix(tail));
    }
  }
  if (consume(rest, "attention.output.")) {
    if (consume(rest, "dense.")) return joined(layer + "attention_out.", linear_suffix(rest));
    if (consume(rest, "LayerNorm.")) return joined(layer + "attention_norm.", norm_suffix(rest));
    return std::nullopt;
  }
  if (consume(rest, "intermediate.dense.")) return joined(layer + "intermediate.", linear_suffix(rest));
  if (consume(rest, "output.")) {
    if (consume(rest, "dense.")) return joined(layer + "output.", linear_suffix(rest));
    if (consume(rest, "LayerNorm.")) return joined(layer + "output_norm.", norm_suffix(rest));
  }
  return std::nullopt;
}

// DistilBERT's TransformerBlock: attention.{q,k,v,out}_lin, sa_layer_norm, ffn.lin1, ffn.lin2 and
// output_layer_norm are BERT's query/key/value/attention-output, attention LayerNorm, intermediate,
// output and output LayerNorm in the same order of operations.
std::optional<std::string> distilbert_layer_parameter(std::string_view rest) {
  const auto prefix = consume_layer(rest);
  if (!prefix) return std::nullopt;
  const std::string& layer = *prefix;
  static constexpr std::pair<std::string_view, std::string_view> kLinears[] = {
      {"attention.q_lin.", "query."},           {"attention.k_lin.", "key."},   {"attention.v_lin.", "value."},
      {"attention.out_lin.", "attention_out."}, {"ffn.lin1.", "intermediate."}, {"ffn.lin2.", "output."}};
  for (const auto& [hf, jetchar] : kLinears) {
    auto tail = rest;
    if (consume(tail, hf)) return joined(layer + std::string(jetchar), linear_suffix(tail));
  }
  if (consume(rest, "sa_layer_norm.")) return joined(layer + "attention_norm.", norm_suffix(rest));
  if (consume(rest, "output_layer_norm.")) return joined(layer + "output_norm.", norm_suffix(rest));
  return std::nullopt;
}

}  // namespace

std::optional<std::string> jetchar_bert_parameter(std::string_view name) {
  for (const std::string_view head : {"classifier.", "qa_outputs."}) {
    auto rest = name;
    if (consume(rest, head)) return joined(std::string(head), linear_suffix(rest));
  }
  if (consume(name, "cls.predictions.")) {
    if (name == "bias") return std::string("mlm_bias");
    if (consume(name, "transform.dense.")) return joined("mlm_transform.", linear_suffix(name));
    if (consume(name, "transform.LayerNorm.")) return joined("mlm_norm.", norm_suffix(name));
    return std::nullopt;
  }
  consume(name, "bert.");
  if (consume(name, "embeddings.")) {
    for (const std::string_view table : {"word_embeddings.", "position_embeddings.", "token_type_embeddings."}) {
      auto rest = name;
      if (consume(rest, table))
        return rest == "weight" ? std::optional<std::string>("bert." + std::string(table) + "weight") : std::nullopt;
    }
    if (consume(name, "LayerNorm.")) return joined("bert.embedding_norm.", norm_suffix(name));
    return std::nullopt;
  }
  if (consume(name, "encoder.layer.")) return layer_parameter(name);
  if (consume(name, "pooler.dense.")) return joined("bert.pooler.", linear_suffix(name));
  return std::nullopt;
}

std::optional<std::string> jetchar_bert_tied_parameter(std::string_view name) {
  if (name == "cls.predictions.decoder.weight") return std::string("bert.word_embeddings.weight");
  if (name == "cls.predictions.decoder.bias") return std::string("mlm_bias");
  return std::nullopt;
}

bool hf_bert_tensor_unused(std::string_view name) {
  if (name.starts_with("cls.")) return true;
  consume(name, "bert.");
  return name == "embeddings.position_ids";
}

bool bert_parameter_may_be_fresh(std::string_view name) {
  for (const std::string_view head :
       {"classifier.", "qa_outputs.", "pre_classifier.", "bert.pooler.", "mlm_", "discriminator_", "generator"}) {
    if (name.starts_with(head)) return true;
  }
  return false;
}

std::optional<std::string> jetchar_electra_parameter(std::string_view name) {
  for (const std::string_view head : {"classifier.", "qa_outputs."}) {
    auto rest = name;
    if (consume(rest, head)) return joined(std::string(head), linear_suffix(rest));
  }
  if (consume(name, "discriminator_predictions.")) {
    if (consume(name, "dense_prediction.")) return joined("discriminator_prediction.", linear_suffix(name));
    if (consume(name, "dense.")) return joined("discriminator_dense.", linear_suffix(name));
    return std::nullopt;
  }
  consume(name, "electra.");
  if (consume(name, "embeddings_project.")) return joined("bert.embeddings_project.", linear_suffix(name));
  // The embeddings and the layers are named as BertModel's.
  if (name.starts_with("embeddings.") || name.starts_with("encoder.layer.")) return jetchar_bert_parameter(name);
  return std::nullopt;
}

bool hf_electra_tensor_unused(std::string_view name) {
  for (const std::string_view head :
       {"generator_predictions.", "generator_lm_head.", "classifier.dense.", "classifier.out_proj."}) {
    if (name.starts_with(head)) return true;
  }
  consume(name, "electra.");
  return name == "embeddings.position_ids";
}

std::optional<std::string> jetchar_distilbert_parameter(std::string_view name) {
  for (const std::string_view head : {"pre_classifier.", "classifier.", "qa_outputs."}) {
    auto rest = name;
    if (consume(rest, head)) return joined(std::string(head), linear_suffix(rest));
  }
  consume(name, "distilbert.");
  if (consume(name, "embeddings.")) {
    for (const std::string_view table : {"word_embeddings.", "position_embeddings."}) {
      auto rest = name;
      if (consume(rest, table))
        return rest == "weight" ? std::optional<std::string>("bert." + std::string(table) + "weight") : std::nullopt;
    }
    if (consume(name, "LayerNorm.")) return joined("bert.embedding_norm.", norm_suffix(name));
    return std::nullopt;
  }
  if (consume(name, "transformer.layer.")) return distilbert_layer_parameter(name);
  return std::nullopt;
}

bool hf_distilbert_tensor_unused(std::string_view name) {
  for (const std::string_view head : {"vocab_transform.", "vocab_layer_norm.", "vocab_projector."}) {
    if (name.starts_with(head)) return true;
  }
  consume(name, "distilbert.");
  return name == "embeddings.position_ids";
}

}  // namespace jetchar::experiments
