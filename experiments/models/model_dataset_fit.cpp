#include "experiments/models/model_dataset_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace jetchar::experiments {

bool model_fits_dataset(const ModelSpec& model, const loaders::SampleLayout& layout) {
  if (!model.token_input()) {
    return layout.input_type == loaders::InputType::kFloat32 && layout.input_shape.size() == 3 &&
           layout.input_shape[0] == model.default_input[0] && layout.target_shape.empty();
  }
  if (layout.input_type != loaders::InputType::kInt64 || layout.input_shape.size() != 1) return false;
  const auto length = layout.input_shape[0];
  // Masked-LM targets are token ids: only a pretraining model predicts them (its vocabulary is sized
  // to the data set's, or checked against a checkpoint's, where the workload is built).
  if (model.pretrains() != (layout.target_vocab_size > 0)) return false;
  switch (model.task) {
    case Task::kSequenceClassification: return layout.target_shape.empty();
    case Task::kTokenClassification: return layout.target_shape == std::vector<std::int64_t>{length};
    case Task::kMaskedLanguageModeling:
    case Task::kReplacedTokenDetection: return layout.target_shape == std::vector<std::int64_t>{length};
    case Task::kQuestionAnswering: return layout.target_shape == std::vector<std::int64_t>{2};
    default: return false;
  }
}

void require_model_fits_dataset(const ModelSpec& model, const loaders::DatasetInfo& dataset) {
  if (model_fits_dataset(model, dataset.layout)) return;
  if (model.pretrains() != (dataset.layout.target_vocab_size > 0)) {
    throw std::invalid_argument(
        fmt::format("model {} ({}) does not fit data set {} ({}): pretraining models (bert-*-mlm, electra-small, "
                    "electra-base) train on a text corpus (corpus:FILE), and a corpus trains only them",
                    model.name, task_name(model.task), dataset.name, dataset.format));
  }
  throw std::invalid_argument(
      fmt::format("model {} ({}, input {}) does not fit data set {} (input {}, target shape [{}])", model.name,
                  task_name(model.task), model.input_description(), dataset.name,
                  fmt::join(dataset.layout.input_shape, "x"), fmt::join(dataset.layout.target_shape, ",")));
}

}  // namespace jetchar::experiments
