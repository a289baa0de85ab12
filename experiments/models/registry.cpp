#include "experiments/models/registry.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiments/models/bert_heads.h"
#include "experiments/models/bert_masked_lm.h"
#include "experiments/models/electra.h"
#include "experiments/models/lenet5.h"
#include "experiments/models/mac_counter.h"
#include "experiments/models/mobilenet_v3.h"
#include "experiments/models/resnet18.h"
#include "experiments/models/vgg11.h"

namespace jetchar::experiments {

namespace {

constexpr std::int64_t kDefaultSequenceLength = 128;
constexpr std::int64_t kConllLabels = 9;  // O, B/I-PER, B/I-ORG, B/I-LOC, B/I-MISC

std::vector<ModelSpec> build_registry() {
  std::vector<ModelSpec> specs;
  specs.push_back({"lenet5",
                   "LeNet-5 (seed study), 28x28 grey images",
                   Task::kImageClassification,
                   {1, 28, 28},
                   10,
                   0,
                   [](std::int64_t classes) { return LeNet5(LeNet5Options{.num_classes = classes}).ptr(); }});
  specs.push_back({"resnet18",
                   "ResNet-18, torchvision layout",
                   Task::kImageClassification,
                   {3, 224, 224},
                   1000,
                   0,
                   [](std::int64_t classes) { return ResNet18(ResNet18Options{.num_classes = classes}).ptr(); }});
  specs.push_back({"resnet18-cifar",
                   "ResNet-18 CIFAR variant of the seed study (GroupNorm(C,C))",
                   Task::kImageClassification,
                   {3, 32, 32},
                   10,
                   0,
                   [](std::int64_t classes) {
                     return ResNet18(ResNet18Options{ResNetStem::kCifar, NormKind::kGroupNorm, classes}).ptr();
                   }});
  specs.push_back({"resnet18-cifar-bn",
                   "ResNet-18 CIFAR variant with BatchNorm",
                   Task::kImageClassification,
                   {3, 32, 32},
                   10,
                   0,
                   [](std::int64_t classes) {
                     return ResNet18(ResNet18Options{ResNetStem::kCifar, NormKind::kBatchNorm, classes}).ptr();
                   }});
  specs.push_back(
      {"mobilenetv3-large",
       "MobileNetV3 Large, torchvision layout",
       Task::kImageClassification,
       {3, 224, 224},
       1000,
       0,
       [](std::int64_t classes) {
         return MobileNetV3(MobileNetV3Options{.size = MobileNetV3Size::kLarge, .num_classes = classes}).ptr();
       }});
  specs.push_back(
      {"mobilenetv3-small",
       "MobileNetV3 Small, torchvision layout",
       Task::kImageClassification,
       {3, 224, 224},
       1000,
       0,
       [](std::int64_t classes) {
         return MobileNetV3(MobileNetV3Options{.size = MobileNetV3Size::kSmall, .num_classes = classes}).ptr();
       }});
  specs.push_back(
      {"vgg11",
       "VGG-11 without BatchNorm, torchvision layout",
       Task::kImageClassification,
       {3, 224, 224},
       1000,
       0,
       [](std::int64_t classes) { return Vgg11(Vgg11Options{.batch_norm = false, .num_classes = classes}).ptr(); }});
  specs.push_back(
      {"vgg11-bn",
       "VGG-11 with BatchNorm, torchvision layout",
       Task::kImageClassification,
       {3, 224, 224},
       1000,
       0,
       [](std::int64_t classes) { return Vgg11(Vgg11Options{.batch_norm = true, .num_classes = classes}).ptr(); }});
  for (const auto& name : bert_config_names()) {
    const auto config = bert_config(name);
    specs.push_back({name,
                     name + " sequence classification",
                     Task::kSequenceClassification,
                     {kDefaultSequenceLength},
                     2,
                     config.vocab_size,
                     [config](std::int64_t classes) { return BertForSequenceClassification(config, classes).ptr(); }});
    specs.push_back({name + "-ner",
                     name + " token classification (CoNLL-2003 tags)",
                     Task::kTokenClassification,
                     {kDefaultSequenceLength},
                     kConllLabels,
                     config.vocab_size,
                     [config](std::int64_t classes) { return BertForTokenClassification(config, classes).ptr(); }});
    specs.push_back({name + "-qa",
                     name + " extractive question answering (SQuAD)",
                     Task::kQuestionAnswering,
                     {kDefaultSequenceLength},
                     2,
                     config.vocab_size,
                     [config](std::int64_t) { return BertForQuestionAnswering(config).ptr(); }});
    // Masked-LM pretraining for BERT's sizes (the vocabulary is its default classes); DistilBERT's masked-LM head has
    // other names and layout (DistilBertForMaskedLM: vocab_transform, vocab_layer_norm, vocab_projector) and is not
    // built.
    if (config.type_vocab_size == 0) continue;
    specs.push_back({name + "-mlm",
                     name + " masked-LM pretraining (HF BertForMaskedLM head)",
                     Task::kMaskedLanguageModeling,
                     {kDefaultSequenceLength},
                     config.vocab_size,
                     config.vocab_size,
                     [config](std::int64_t vocabulary) {
                       // The decoder's classes are the vocabulary: a model pretrained from scratch takes
                       // its corpus's vocab.txt size (training_workload.cpp), as BERT's bert_config.json
                       // states its vocab.txt's.
                       auto sized = config;
                       sized.vocab_size = vocabulary;
                       return BertForMaskedLM(sized).ptr();
                     }});
  }
  for (const auto& name : electra_config_names()) {
    const auto config = electra_config(name);
    const auto& discriminator = config.discriminator;
    specs.push_back({name,
                     name + " pretraining: generator (masked LM) and discriminator (replaced-token detection)",
                     Task::kReplacedTokenDetection,
                     {kDefaultSequenceLength},
                     discriminator.vocab_size,
                     discriminator.vocab_size,
                     [config](std::int64_t vocabulary) {
                       auto sized = config;  // the corpus's vocabulary from scratch, as for bert-*-mlm
                       sized.discriminator.vocab_size = vocabulary;
                       return ElectraForPreTraining(sized).ptr();
                     }});
    // ElectraForTokenClassification and ElectraForQuestionAnswering are BERT's heads on ElectraModel.
    specs.push_back(
        {name + "-ner",
         name + " token classification (CoNLL-2003 tags)",
         Task::kTokenClassification,
         {kDefaultSequenceLength},
         kConllLabels,
         discriminator.vocab_size,
         [discriminator](std::int64_t classes) { return BertForTokenClassification(discriminator, classes).ptr(); }});
    specs.push_back({name + "-qa",
                     name + " extractive question answering (SQuAD)",
                     Task::kQuestionAnswering,
                     {kDefaultSequenceLength},
                     2,
                     discriminator.vocab_size,
                     [discriminator](std::int64_t) { return BertForQuestionAnswering(discriminator).ptr(); }});
  }
  return specs;
}

}  // namespace

std::string ModelSpec::input_description() const {
  if (token_input()) return fmt::format("seq {}", default_input.at(0));
  return fmt::format("{}", fmt::join(default_input, "x"));
}

const std::vector<ModelSpec>& model_registry() {
  static const std::vector<ModelSpec> registry = build_registry();
  return registry;
}

const ModelSpec& find_model(std::string_view name) {
  std::vector<std::string_view> names;
  for (const auto& spec : model_registry()) {
    if (spec.name == name) return spec;
    names.push_back(spec.name);
  }
  throw std::invalid_argument(fmt::format("unknown model '{}'; valid: {}", name, fmt::join(names, ", ")));
}

std::shared_ptr<Network> make_model(const ModelSpec& spec, std::optional<std::int64_t> num_classes) {
  const auto classes = num_classes.value_or(spec.default_classes);
  if (classes < 1) {
    throw std::invalid_argument(fmt::format("model {}: number of classes {} must be at least 1", spec.name, classes));
  }
  return spec.make(classes);
}

loaders::Batch synthetic_batch(const ModelSpec& spec, std::int64_t batch_size, std::int64_t num_classes,
                               const std::vector<std::int64_t>& input, std::uint64_t seed) {
  if (batch_size < 1) throw std::invalid_argument(fmt::format("batch size {} must be at least 1", batch_size));
  auto generator = at::detail::createCPUGenerator(seed);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong);
  loaders::Batch batch;
  if (!spec.token_input()) {
    std::vector<std::int64_t> shape{batch_size};
    shape.insert(shape.end(), input.begin(), input.end());
    batch.inputs = torch::randn(shape, generator);
    batch.targets = torch::randint(0, num_classes, {batch_size}, generator, long_options);
    return batch;
  }
  const std::int64_t length = input.at(0);
  if (length < 2) throw std::invalid_argument(fmt::format("sequence length {} must be at least 2", length));
  batch.inputs = torch::randint(std::min<std::int64_t>(1000, spec.vocab_size - 1), spec.vocab_size,
                                {batch_size, length}, generator, long_options);
  batch.attention_mask = torch::ones({batch_size, length}, long_options);
  batch.token_type_ids = torch::zeros({batch_size, length}, long_options);
  switch (spec.task) {
    case Task::kTokenClassification:
      batch.targets = torch::randint(0, num_classes, {batch_size, length}, generator, long_options);
      break;
    case Task::kQuestionAnswering:
      batch.targets = std::get<0>(torch::randint(0, length, {batch_size, 2}, generator, long_options).sort(1));
      break;
    case Task::kMaskedLanguageModeling:
    case Task::kReplacedTokenDetection: {
      // The inputs' own ids as targets at about 15 % of the positions (masked-LM masking's share),
      // -100 elsewhere.
      auto masked = torch::rand({batch_size, length}, generator).lt(0.15);
      batch.targets = torch::where(masked, batch.inputs, torch::full_like(batch.inputs, -100));
      break;
    }
    default: batch.targets = torch::randint(0, num_classes, {batch_size}, generator, long_options);
  }
  return batch;
}

std::int64_t macs_per_sample(Network& model, const ModelSpec& spec, const std::vector<std::int64_t>& input) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  auto batch = synthetic_batch(spec, 1, spec.default_classes, input);
  MacCountScope scope(MacCounting::kShapesOnly);
  model.forward_batch(batch);
  model.train(was_training);
  return scope.macs();
}

std::int64_t macs_per_sample(const ModelSpec& spec) {
  auto model = make_model(spec);
  return macs_per_sample(*model, spec, spec.default_input);
}

}  // namespace jetchar::experiments
