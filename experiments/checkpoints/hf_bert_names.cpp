#include "experiments/checkpoints/hf_bert_names.h"

#include <charconv>

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

std::optional<std::string> layer_parameter(std::string_view rest) {
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
  if (error != std::errc{} || end == rest.data() || (*rest.data() == '0' && end - rest.data() > 1)) return std::nullopt;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  if (!consume(rest, ".")) return std::nullopt;
  const std::string layer = "bert.layer" + std::to_string(index) + ".";
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

}  // namespace

std::optional<std::string> jetchar_bert_parameter(std::string_view name) {
  for (const std::string_view head : {"classifier.", "qa_outputs."}) {
    auto rest = name;
    if (consume(rest, head)) return joined(std::string(head), linear_suffix(rest));
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

bool hf_bert_tensor_unused(std::string_view name) {
  if (name.starts_with("cls.")) return true;
  consume(name, "bert.");
  return name == "embeddings.position_ids";
}

bool bert_parameter_may_be_fresh(std::string_view name) {
  return name.starts_with("classifier.") || name.starts_with("qa_outputs.") || name.starts_with("pre_classifier.") ||
         name.starts_with("bert.pooler.");
}

}  // namespace jetchar::experiments
