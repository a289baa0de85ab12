#include "experiments/models/bert.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

namespace {

BertConfig make_config(std::string name, std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  BertConfig config;
  config.name = std::move(name);
  config.layers = layers;
  config.hidden = hidden;
  config.heads = heads;
  config.intermediate = 4 * hidden;
  return config;
}

// HF DistilBERT's create_sinusoidal_embeddings: column j of position p is p / 10000^(2*floor(j/2)/dim),
// its sine in even columns and its cosine in odd ones.
torch::Tensor sinusoidal_position_table(std::int64_t positions, std::int64_t dim) {
  auto table = torch::empty({positions, dim}, torch::kFloat64);
  auto cells = table.accessor<double, 2>();
  for (std::int64_t p = 0; p < positions; ++p) {
    for (std::int64_t j = 0; j < dim; ++j) {
      const double angle =
          static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / static_cast<double>(dim));
      cells[p][j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
  return table.to(torch::kFloat32);
}

}  // namespace

const std::vector<std::string>& bert_config_names() {
  static const std::vector<std::string> names = {"bert-tiny", "bert-mini",  "bert-small", "bert-medium",
                                                 "bert-base", "bert-large", "distilbert"};
  return names;
}

BertConfig bert_config(std::string_view name) {
  // Sizes of google-research/bert's compact models and the two original ones.
  if (name == "bert-tiny") return make_config("bert-tiny", 2, 128, 2);
  if (name == "bert-mini") return make_config("bert-mini", 4, 256, 4);
  if (name == "bert-small") return make_config("bert-small", 4, 512, 8);
  if (name == "bert-medium") return make_config("bert-medium", 8, 512, 8);
  if (name == "bert-base") return make_config("bert-base", 12, 768, 12);
  if (name == "bert-large") return make_config("bert-large", 24, 1024, 16);
  if (name == "distilbert") {
    // distilbert-base (HF's DistilBertConfig defaults): no segments, no pooler, its own head dropouts.
    auto config = make_config("distilbert", 6, 768, 12);
    config.family = BertFamily::kDistilBert;
    config.type_vocab_size = 0;
    config.pooler = false;
    config.sequence_dropout = 0.2;
    config.qa_dropout = 0.1;
    return config;
  }
  throw std::invalid_argument(
      fmt::format("unknown BERT configuration '{}'; valid: {}", name, fmt::join(bert_config_names(), ", ")));
}

BertLayerImpl::BertLayerImpl(const BertConfig& config) : heads_(config.heads) {
  using torch::nn::Linear;
  const auto hidden = config.hidden;
  if (hidden % config.heads != 0) {
    throw std::invalid_argument(
        fmt::format("BERT hidden size {} is not a multiple of the head count {}", hidden, config.heads));
  }
  query_ = register_module("query", Linear(hidden, hidden));
  key_ = register_module("key", Linear(hidden, hidden));
  value_ = register_module("value", Linear(hidden, hidden));
  attention_out_ = register_module("attention_out", Linear(hidden, hidden));
  attention_norm_ = register_module(
      "attention_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(config.layer_norm_eps)));
  intermediate_ = register_module("intermediate", Linear(hidden, config.intermediate));
  output_ = register_module("output", Linear(config.intermediate, hidden));
  output_norm_ = register_module(
      "output_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden}).eps(config.layer_norm_eps)));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  attention_dropout_ = register_module("attention_dropout", torch::nn::Dropout(config.attention_dropout));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& mask_bias) {
  const auto batch = x.size(0);
  const auto length = x.size(1);
  const auto hidden = x.size(2);
  const auto head_size = hidden / heads_;
  auto split_heads = [&](const torch::Tensor& t) { return t.view({batch, length, heads_, head_size}).transpose(1, 2); };
  auto q = split_heads(counted(query_, x));
  auto k = split_heads(counted(key_, x));
  auto v = split_heads(counted(value_, x));
  auto scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_size));
  if (mask_bias.defined()) scores = scores + mask_bias.to(scores.scalar_type());
  auto probabilities = attention_dropout_(torch::softmax(scores, -1));
  auto context = torch::matmul(probabilities, v).transpose(1, 2).reshape({batch, length, hidden});
  auto attended = attention_norm_(dropout_(counted(attention_out_, context)) + x);
  auto expanded = torch::gelu(counted(intermediate_, attended));
  return output_norm_(dropout_(counted(output_, expanded)) + attended);
}

BertModelImpl::BertModelImpl(const BertConfig& config, bool with_embeddings) : config_(config) {
  const auto width = config.embedding_width();
  if (with_embeddings) {
    word_embeddings_ = register_module("word_embeddings", torch::nn::Embedding(config.vocab_size, width));
    position_embeddings_ = register_module("position_embeddings", torch::nn::Embedding(config.max_positions, width));
    if (config.sinusoidal_positions) {
      torch::NoGradGuard no_grad;
      position_embeddings_->weight.copy_(sinusoidal_position_table(config.max_positions, width));
      position_embeddings_->weight.requires_grad_(false);  // as HF: the table is fixed, never trained
    }
    if (config.type_vocab_size > 0) {
      token_type_embeddings_ =
          register_module("token_type_embeddings", torch::nn::Embedding(config.type_vocab_size, width));
    }
    embedding_norm_ = register_module(
        "embedding_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(config.layer_norm_eps)));
    dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  }
  if (width != config.hidden) {
    embeddings_project_ = register_module("embeddings_project", torch::nn::Linear(width, config.hidden));
  }
  for (std::int64_t i = 0; i < config.layers; ++i) {
    layers_.push_back(register_module("layer" + std::to_string(i), BertLayer(config)));
  }
  if (config.pooler) pooler_ = register_module("pooler", torch::nn::Linear(config.hidden, config.hidden));
}

torch::Tensor BertModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                     const torch::Tensor& token_type_ids) {
  return encode(embed(input_ids, token_type_ids), attention_mask);
}

torch::Tensor BertModelImpl::embed(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids) {
  if (!word_embeddings_) throw std::logic_error(config_.name + "'s encoder shares another's embeddings");
  const auto length = input_ids.size(1);
  if (length > config_.max_positions) {
    throw std::invalid_argument(
        fmt::format("sequence length {} exceeds the {} positions of {}", length, config_.max_positions, config_.name));
  }
  auto positions = torch::arange(length, input_ids.options().dtype(torch::kLong));
  auto x = word_embeddings_(input_ids) + position_embeddings_(positions).unsqueeze(0);
  if (token_type_embeddings_) {
    x = x + (token_type_ids.defined() ? token_type_embeddings_(token_type_ids)
                                      : token_type_embeddings_(torch::zeros_like(input_ids)));
  }
  return dropout_(embedding_norm_(x));
}

torch::Tensor BertModelImpl::encode(const torch::Tensor& embedded, const torch::Tensor& attention_mask) {
  auto x = embeddings_project_ ? counted(embeddings_project_, embedded) : embedded;
  torch::Tensor mask_bias;
  if (attention_mask.defined()) {
    // Padding keys get a large negative score so softmax gives them ~0 weight; -1e4 stays finite in fp16.
    mask_bias = (1.0 - attention_mask.to(x.scalar_type())).mul(-10000.0).unsqueeze(1).unsqueeze(2);
  }
  for (auto& layer : layers_) x = layer(x, mask_bias);
  return x;
}

torch::Tensor BertModelImpl::pool(const torch::Tensor& hidden_states) {
  if (!pooler_) throw std::logic_error(config_.name + " has no pooler");
  return torch::tanh(counted(pooler_, hidden_states.select(1, 0)));
}

void initialise_as_hf(torch::nn::Module& module, double range) {
  torch::NoGradGuard no_grad;
  for (auto& item : module.named_parameters()) {
    const auto& name = item.key();
    auto& value = item.value();
    if (!value.requires_grad()) continue;  // DistilBERT's sinusoidal position table
    if (name.ends_with("norm.weight")) {
      value.fill_(1.0);
    } else if (name.ends_with("bias")) {  // a Linear's `.bias` and the decoders' own (`mlm_bias`, `generator_bias`)
      value.zero_();
    } else {
      value.normal_(0.0, range);
    }
  }
}

}  // namespace jetchar::experiments
