// Pretrained BERT, DistilBERT and ELECTRA weights from a Hugging Face model folder (config.json,
// vocab.txt and model.safetensors or pytorch_model.bin) loaded into jetchar's BERT task models: a
// "bert" folder into the bert-* models, a "distilbert" folder (config.json's model_type) into the
// distilbert ones, an "electra" folder (a discriminator or its encoder) into the electra-* ones,
// whose pretraining model starts its generator fresh.
//
// model.safetensors is read directly (safetensors_header.h); pytorch_model.bin is torch.save's
// zip archive of the state dict, read with LibTorch's unpickler (torch::pickle_load). HF names
// map onto jetchar's through hf_bert_names.h. Every encoder parameter must come from the
// checkpoint with its exact shape; the task head (and a pooler the checkpoint lacks) may be fresh
// and is then initialised as HF's BertPreTrainedModel._init_weights and
// DistilBertPreTrainedModel._init_weights both do for a Linear: weights from
// N(0, initializer_range), biases zero (a LayerNorm: weight one, bias zero). The bert-*-mlm models
// read BertForMaskedLM's and BertForPreTraining's `cls.predictions.*` into their masked-LM head;
// its decoder weight and bias are tied to the word embeddings and `cls.predictions.bias`, so a
// checkpoint's copies of them must equal those (or stand in for them where a safetensors file kept
// only the copy). A checkpoint tensor that is neither jetchar's nor one HF also leaves unused (the
// pretraining heads cls.* for a model without them, the next-sentence head cls.seq_relationship,
// DistilBERT's vocab_*, the position_ids buffer, another task's head) is an error naming it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "experiments/checkpoints/hf_bert_config.h"
#include "experiments/models/bert.h"
#include "experiments/models/registry.h"

namespace jetchar::experiments {

using TensorMap = std::map<std::string, torch::Tensor>;

/// Every tensor of a safetensors file, in its dtype (F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL).
TensorMap read_safetensors(const std::filesystem::path& path);
/// The state dict torch.save wrote (zip archive); every value must be a tensor.
TensorMap read_torch_state_dict(const std::filesystem::path& path);
/// DIR/model.safetensors when it exists, else DIR/pytorch_model.bin; throws CheckpointError naming both.
std::filesystem::path hf_weights_file(const std::filesystem::path& model_dir);

/// The preset's architecture with the checkpoint's vocabulary, positions (learned or sinusoidal),
/// token types, dropouts and LayerNorm epsilon. Throws CheckpointError when the checkpoint's
/// family (BERT, DistilBERT, ELECTRA) is not the preset's, or when the layer count, hidden size,
/// head count, intermediate size or embedding width differ from the preset's (naming both), so a
/// result's model name says what ran.
BertConfig bert_config_from_hf(const HfBertConfig& hf, const BertConfig& preset, const std::string& source);

struct PretrainedLoad {
  std::string model_dir;
  std::string weights_file;
  std::int64_t loaded_tensors = 0;
  std::vector<std::string> fresh;   ///< jetchar parameters initialised as HF does (task head, pooler)
  std::vector<std::string> unused;  ///< checkpoint tensors the model does not use
};
nlohmann::json to_json(const PretrainedLoad& load);

/// Copies `weights`, named as HF's `model_type` names them, into `model`'s parameters (see above).
/// `seed` seeds the fresh initialisation.
PretrainedLoad load_hf_bert_weights(torch::nn::Module& model, const TensorMap& weights, double initializer_range,
                                    std::uint64_t seed, const std::string& source,
                                    HfModelType model_type = HfModelType::kBert);

struct PretrainedModel {
  std::shared_ptr<Network> network;
  BertConfig config;
  PretrainedLoad load;
};

/// The BERT task model `spec` names (bert-*, bert-*-ner, bert-*-qa, bert-*-mlm, distilbert,
/// distilbert-ner, distilbert-qa, electra-*, electra-*-ner, electra-*-qa), built with the folder's config.json and
/// loaded with its weights. `num_classes` defaults to the checkpoint's id2label count, else the spec's. Throws
/// std::invalid_argument for a model that is not BERT.
PretrainedModel make_pretrained_model(const ModelSpec& spec, const std::filesystem::path& model_dir,
                                      std::optional<std::int64_t> num_classes, std::uint64_t seed);

}  // namespace jetchar::experiments
