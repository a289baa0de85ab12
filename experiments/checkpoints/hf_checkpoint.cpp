#include "experiments/checkpoints/hf_checkpoint.h"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/checkpoints/checkpoint_error.h"
#include "experiments/checkpoints/hf_bert_names.h"
#include "experiments/checkpoints/safetensors_header.h"
#include "experiments/models/bert_heads.h"
#include "experiments/models/bert_masked_lm.h"
#include "experiments/models/electra.h"

namespace jetchar::experiments {

namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors and torch.save data are little-endian; a big-endian host would need byte swaps");

std::optional<torch::ScalarType> torch_dtype(std::string_view dtype) {
  if (dtype == "F64") return torch::kFloat64;
  if (dtype == "F32") return torch::kFloat32;
  if (dtype == "F16") return torch::kFloat16;
  if (dtype == "BF16") return torch::kBFloat16;
  if (dtype == "I64") return torch::kInt64;
  if (dtype == "I32") return torch::kInt32;
  if (dtype == "I16") return torch::kInt16;
  if (dtype == "I8") return torch::kInt8;
  if (dtype == "U8") return torch::kUInt8;
  if (dtype == "BOOL") return torch::kBool;
  return std::nullopt;  // U16, U32, U64: LibTorch 1.13 has no such dtype
}

std::string shape_text(at::IntArrayRef shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// The configuration preset of a registry BERT or ELECTRA model: its name less the task suffix.
std::optional<std::string> bert_preset_of(const ModelSpec& spec) {
  if (spec.task == Task::kImageClassification) return std::nullopt;
  std::string_view name = spec.name;
  for (const std::string_view suffix : {"-ner", "-qa", "-mlm"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
  for (const auto* names : {&bert_config_names(), &electra_config_names()}) {
    if (std::find(names->begin(), names->end(), name) != names->end()) return std::string(name);
  }
  return std::nullopt;
}

// The encoder configuration of a preset: ELECTRA's is its discriminator.
BertConfig preset_config(const std::string& preset) {
  if (preset.starts_with("electra-")) return electra_config(preset).discriminator;
  return bert_config(preset);
}

HfModelType hf_family(BertFamily family) {
  switch (family) {
    case BertFamily::kDistilBert: return HfModelType::kDistilBert;
    case BertFamily::kElectra: return HfModelType::kElectra;
    case BertFamily::kBert: break;
  }
  return HfModelType::kBert;
}

// How one family's checkpoints name their tensors (hf_bert_names.h).
struct FamilyNames {
  const char* family;
  const char* a_family;  // with its article
  std::optional<std::string> (*parameter)(std::string_view);
  bool (*unused)(std::string_view);
  const char* encoder_names;  // where an encoder parameter's HF name is expected
  const char* models;         // jetchar's models for such a checkpoint
};

FamilyNames family_names(HfModelType type) {
  switch (type) {
    case HfModelType::kDistilBert:
      return {"DistilBERT",
              "a DistilBERT",
              jetchar_distilbert_parameter,
              hf_distilbert_tensor_unused,
              "distilbert.embeddings or distilbert.transformer.layer.N",
              "distilbert, distilbert-ner or distilbert-qa"};
    case HfModelType::kElectra:
      return {"ELECTRA",
              "an ELECTRA",
              jetchar_electra_parameter,
              hf_electra_tensor_unused,
              "electra.embeddings, electra.embeddings_project or electra.encoder.layer.N",
              "an electra-* model of the checkpoint's size"};
    case HfModelType::kBert: break;
  }
  return {"BERT",
          "a BERT",
          jetchar_bert_parameter,
          hf_bert_tensor_unused,
          "bert.embeddings, bert.encoder.layer.N or bert.pooler",
          "a bert-* model of the checkpoint's size"};
}

}  // namespace

TensorMap read_safetensors(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(fmt::format("{} cannot be read", path.string()));
  const auto file_size = static_cast<std::uint64_t>(std::filesystem::file_size(path));
  std::string start(8, '\0');
  in.read(start.data(), 8);
  start.resize(static_cast<std::size_t>(in.gcount()));
  const auto length = safetensors_header_length(start, file_size, path.string());
  start.resize(8 + length);
  in.read(start.data() + 8, static_cast<std::streamsize>(length));
  const auto header = parse_safetensors_header(start, file_size, path.string());
  TensorMap tensors;
  for (const auto& entry : header.tensors) {
    const auto dtype = torch_dtype(entry.dtype);
    if (!dtype) {
      throw CheckpointError(fmt::format("safetensors file {}: tensor '{}' has dtype {}, which LibTorch {} cannot hold",
                                        path.string(), entry.name, entry.dtype, TORCH_VERSION));
    }
    auto tensor = torch::empty(entry.shape, torch::TensorOptions().dtype(*dtype));
    in.seekg(static_cast<std::streamoff>(header.data_start + entry.begin));
    in.read(static_cast<char*>(tensor.data_ptr()), static_cast<std::streamsize>(entry.end - entry.begin));
    if (!in) {
      throw CheckpointError(fmt::format("safetensors file {}: tensor '{}' could not be read at bytes [{}, {})",
                                        path.string(), entry.name, entry.begin, entry.end));
    }
    tensors.emplace(entry.name, std::move(tensor));
  }
  return tensors;
}

TensorMap read_torch_state_dict(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(fmt::format("{} cannot be read", path.string()));
  // One read of the whole file: a base-sized checkpoint is hundreds of megabytes, which a stream
  // iterator would copy a character at a time.
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (size_error) throw CheckpointError(fmt::format("{} cannot be read: {}", path.string(), size_error.message()));
  std::vector<char> bytes(size);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) {
    throw CheckpointError(
        fmt::format("{} cannot be read: {} of its {} bytes were read", path.string(), in.gcount(), size));
  }
  torch::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const c10::Error& e) {
    throw CheckpointError(
        fmt::format("{} is not a state dict torch.save wrote: {}", path.string(), e.what_without_backtrace()));
  }
  if (!value.isGenericDict()) {
    throw CheckpointError(
        fmt::format("{} holds a {}, not a state dict (a dict of tensors)", path.string(), value.tagKind()));
  }
  TensorMap tensors;
  for (const auto& item : value.toGenericDict()) {
    if (!item.key().isString() || !item.value().isTensor()) {
      throw CheckpointError(fmt::format("{}: entry {} is a {}, not a named tensor", path.string(),
                                        item.key().isString() ? item.key().toStringRef() : item.key().tagKind(),
                                        item.value().tagKind()));
    }
    tensors.emplace(item.key().toStringRef(), item.value().toTensor());
  }
  return tensors;
}

std::filesystem::path hf_weights_file(const std::filesystem::path& model_dir) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin"}) {
    if (std::filesystem::is_regular_file(model_dir / name)) return model_dir / name;
  }
  throw CheckpointError(fmt::format("{} holds neither model.safetensors nor pytorch_model.bin", model_dir.string()));
}

BertConfig bert_config_from_hf(const HfBertConfig& hf, const BertConfig& preset, const std::string& source) {
  const auto preset_type = hf_family(preset.family);
  if (preset_type != hf.model_type) {
    throw CheckpointError(fmt::format("{} holds {} checkpoint (model_type \"{}\"); {} is {} model: choose {}", source,
                                      family_names(hf.model_type).a_family, hf_model_type_name(hf.model_type),
                                      preset.name, family_names(preset_type).a_family,
                                      family_names(hf.model_type).models));
  }
  if (hf.num_hidden_layers != preset.layers || hf.hidden_size != preset.hidden ||
      hf.num_attention_heads != preset.heads || hf.intermediate_size != preset.intermediate) {
    throw CheckpointError(fmt::format(
        "{} describes {} layers, hidden {}, {} heads, intermediate {}; {} has {} layers, hidden {}, {} heads, "
        "intermediate {}: choose the model of the checkpoint's size",
        source, hf.num_hidden_layers, hf.hidden_size, hf.num_attention_heads, hf.intermediate_size, preset.name,
        preset.layers, preset.hidden, preset.heads, preset.intermediate));
  }
  if (hf.embedding_size != preset.embedding_width()) {
    throw CheckpointError(
        fmt::format("{} describes embedding_size {}; {} has {}: choose the model of the checkpoint's size", source,
                    hf.embedding_size, preset.name, preset.embedding_width()));
  }
  BertConfig config = preset;
  config.vocab_size = hf.vocab_size;
  config.max_positions = hf.max_position_embeddings;
  config.type_vocab_size = hf.type_vocab_size;
  config.dropout = hf.hidden_dropout_prob;
  config.attention_dropout = hf.attention_probs_dropout_prob;
  config.layer_norm_eps = hf.layer_norm_eps;
  config.sinusoidal_positions = hf.sinusoidal_positions;
  config.sequence_dropout = hf.sequence_dropout;
  config.qa_dropout = hf.qa_dropout;
  return config;
}

nlohmann::json to_json(const PretrainedLoad& load) {
  return {{"model_dir", load.model_dir},
          {"weights_file", load.weights_file},
          {"loaded_tensors", load.loaded_tensors},
          {"fresh", load.fresh},
          {"unused", load.unused}};
}

PretrainedLoad load_hf_bert_weights(torch::nn::Module& model, const TensorMap& weights, double initializer_range,
                                    std::uint64_t seed, const std::string& source, HfModelType model_type) {
  const auto names = family_names(model_type);
  PretrainedLoad load;
  load.weights_file = source;
  auto parameters = model.named_parameters(/*recurse=*/true);
  std::map<std::string, std::string> filled;  // jetchar name -> HF name
  // HF's tied duplicates (the masked-LM decoder), checked against or filling their parameter once
  // every other tensor is in.
  std::vector<std::pair<std::string, std::string>> tied;  // HF name, jetchar name
  torch::NoGradGuard no_grad;
  for (const auto& [hf_name, tensor] : weights) {
    const auto target =
        model_type == HfModelType::kBert ? jetchar_bert_tied_parameter(hf_name) : std::optional<std::string>();
    if (target) {
      if (parameters.find("mlm_bias") != nullptr) {
        tied.emplace_back(hf_name, *target);
      } else {
        load.unused.push_back(hf_name);  // no masked-LM head: unused, as HF leaves it
      }
      continue;
    }
    const auto name = names.parameter(hf_name);
    if (!name) {
      if (names.unused(hf_name)) {
        load.unused.push_back(hf_name);
        continue;
      }
      throw CheckpointError(fmt::format("{}: tensor '{}' {} is not a parameter of {} or of its task heads", source,
                                        hf_name, shape_text(tensor.sizes()), names.family));
    }
    auto* parameter = parameters.find(*name);
    if (parameter == nullptr) {
      // Another task's head or a pooler this model leaves out, as HF leaves them unused.
      if (bert_parameter_may_be_fresh(*name)) {
        load.unused.push_back(hf_name);
        continue;
      }
      throw CheckpointError(
          fmt::format("{}: tensor '{}' has no place in this model (no parameter {})", source, hf_name, *name));
    }
    if (const auto it = filled.find(*name); it != filled.end()) {
      throw CheckpointError(fmt::format("{}: tensors '{}' and '{}' both hold {}", source, it->second, hf_name, *name));
    }
    if (parameter->sizes() != tensor.sizes()) {
      throw CheckpointError(fmt::format("{}: tensor '{}' has shape {}, but the model's {} has shape {}", source,
                                        hf_name, shape_text(tensor.sizes()), *name, shape_text(parameter->sizes())));
    }
    if (!tensor.is_floating_point()) {
      throw CheckpointError(fmt::format("{}: tensor '{}' has dtype {}, not a floating-point type", source, hf_name,
                                        c10::toString(tensor.scalar_type())));
    }
    parameter->copy_(tensor);
    filled.emplace(*name, hf_name);
    ++load.loaded_tensors;
  }
  for (const auto& [hf_name, name] : tied) {
    const auto& tensor = weights.at(hf_name);
    auto* parameter = parameters.find(name);
    if (parameter->sizes() != tensor.sizes() || !tensor.is_floating_point()) {
      throw CheckpointError(fmt::format("{}: tensor '{}' {} ({}) cannot be the model's {} {}, which it is tied to",
                                        source, hf_name, shape_text(tensor.sizes()),
                                        c10::toString(tensor.scalar_type()), name, shape_text(parameter->sizes())));
    }
    if (const auto it = filled.find(name); it != filled.end()) {
      // Saved beside the tensor it is tied to: the same values, or the checkpoint's decoder was not
      // tied (tie_word_embeddings false), which jetchar's model cannot hold.
      if (!torch::equal(parameter->to(tensor.scalar_type()), tensor)) {
        throw CheckpointError(fmt::format(
            "{}: tensor '{}' differs from '{}', to which jetchar's masked-LM decoder is tied (as HF ties them unless "
            "config.json sets tie_word_embeddings false); jetchar cannot load an untied decoder",
            source, hf_name, it->second));
      }
      load.unused.push_back(hf_name);
      continue;
    }
    parameter->copy_(tensor);
    filled.emplace(name, hf_name);
    ++load.loaded_tensors;
  }
  auto generator = at::detail::createCPUGenerator(seed);
  for (auto& item : parameters) {
    if (filled.count(item.key()) != 0) continue;
    if (!bert_parameter_may_be_fresh(item.key())) {
      throw CheckpointError(fmt::format("{}: no tensor for the model's {} {} (HF name expected under {})", source,
                                        item.key(), shape_text(item.value().sizes()), names.encoder_names));
    }
    // BertPreTrainedModel._init_weights, DistilBertPreTrainedModel's and ElectraPreTrainedModel's
    // alike: Linear weight ~ N(0, initializer_range), bias 0; LayerNorm weight 1, bias 0 (the
    // masked-LM transform's, ELECTRA's generator); the decoders' biases 0.
    auto& value = item.value();
    if (item.key().ends_with("norm.weight")) {
      value.fill_(1.0);
    } else if (item.key().ends_with("bias")) {
      value.zero_();
    } else {
      value.copy_(torch::empty(value.sizes(), torch::kFloat32).normal_(0.0, initializer_range, generator));
    }
    load.fresh.push_back(item.key());
  }
  return load;
}

PretrainedModel make_pretrained_model(const ModelSpec& spec, const std::filesystem::path& model_dir,
                                      std::optional<std::int64_t> num_classes, std::uint64_t seed) {
  const auto preset = bert_preset_of(spec);
  if (!preset) {
    throw std::invalid_argument(
        fmt::format("model {} is not a BERT model; pretrained Hugging Face checkpoints are "
                    "read for the bert-*, distilbert and electra-* models",
                    spec.name));
  }
  const auto hf = read_hf_bert_config(model_dir);
  const auto config_source = (model_dir / "config.json").string();
  PretrainedModel result;
  result.config = bert_config_from_hf(hf, preset_config(*preset), config_source);
  const auto classes =
      num_classes.value_or(hf.labels.empty() ? spec.default_classes : static_cast<std::int64_t>(hf.labels.size()));
  if (classes < 1) {
    throw std::invalid_argument(fmt::format("model {}: number of classes {} must be at least 1", spec.name, classes));
  }
  switch (spec.task) {
    case Task::kSequenceClassification:
      result.network = BertForSequenceClassification(result.config, classes).ptr();
      break;
    case Task::kTokenClassification: result.network = BertForTokenClassification(result.config, classes).ptr(); break;
    case Task::kQuestionAnswering: result.network = BertForQuestionAnswering(result.config).ptr(); break;
    case Task::kMaskedLanguageModeling: result.network = BertForMaskedLM(result.config).ptr(); break;
    case Task::kReplacedTokenDetection:
      // The checkpoint is the discriminator's (ElectraForPreTraining or ElectraModel); the generator,
      // released as a folder of its own, starts fresh on the shared embeddings.
      result.network = ElectraForPreTraining(ElectraConfig{result.config, electra_config(*preset).generator}).ptr();
      break;
    default: throw std::invalid_argument(fmt::format("model {} has no BERT task head", spec.name));
  }
  const auto weights_file = hf_weights_file(model_dir);
  const auto weights =
      weights_file.extension() == ".safetensors" ? read_safetensors(weights_file) : read_torch_state_dict(weights_file);
  result.load =
      load_hf_bert_weights(*result.network, weights, hf.initializer_range, seed, weights_file.string(), hf.model_type);
  result.load.model_dir = model_dir.string();
  return result;
}

}  // namespace jetchar::experiments
