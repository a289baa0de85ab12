#include "experiments/training_workload.h"

#include "experiments/checkpoints/pretrained_vocab.h"
#include "experiments/run_settings.h"

#include <fmt/format.h>
#include <torch/torch.h>

namespace jetchar::experiments {

TrainingWorkload open_training_workload(const proto::ExperimentSpec& resolved, std::int64_t shard_index,
                                        std::int64_t shard_count, const TrainingWorkload* trained) {
  const auto& w = resolved.workload();
  TrainingWorkload workload;
  workload.dataset_spec = loaders::DatasetSpec::parse(w.dataset());
  if (!w.pretrained().empty()) use_pretrained_vocab(workload.dataset_spec, w.pretrained());
  workload.dataset = loaders::open_dataset(
      workload.dataset_spec, w.transform().empty() ? std::nullopt : std::optional<std::string>(w.transform()));
  auto pipeline_options = training_pipeline_options(resolved);
  pipeline_options.shard_index = shard_index;
  pipeline_options.shard_count = shard_count;
  workload.pipeline = std::make_unique<loaders::Pipeline>(workload.dataset, pipeline_options);

  // A head for the data set's classes when it names any; a checkpoint's vocabulary becomes the
  // model spec's, so that synthetic token ids (counting the model's work) stay inside it.
  workload.model_spec = find_model(w.model());
  const auto classes = static_cast<std::int64_t>(workload.dataset->info().classes.size());
  auto num_classes = classes > 0 ? std::optional<std::int64_t>(classes) : std::nullopt;
  // Pretraining predicts token ids: from scratch, the embeddings and the decoder take the corpus's
  // vocabulary (a bert_config.json's vocab_size is its vocab.txt's); a checkpoint's must hold it.
  const auto vocabulary = workload.dataset->info().layout.target_vocab_size;
  const bool masked_lm = workload.model_spec.pretrains() && vocabulary > 0;
  if (masked_lm && w.pretrained().empty()) {
    num_classes = vocabulary;
    workload.model_spec.vocab_size = vocabulary;
  }
  if (trained != nullptr) {
    // A later phase: the same corpus and vocabulary, the network the earlier phase left.
    workload.model_spec = trained->model_spec;
    workload.model = trained->model;
    workload.pretrained = trained->pretrained;
  } else if (w.pretrained().empty()) {
    // workload.seed gives the initial weights too: the same spec trains the same network, and the
    // ranks of a data-parallel run start equal before rank 0's weights are broadcast anyway.
    torch::manual_seed(w.seed());
    workload.model = make_model(workload.model_spec, num_classes);
  } else {
    auto pretrained = make_pretrained_model(workload.model_spec, w.pretrained(), num_classes, w.seed());
    if (masked_lm && vocabulary > pretrained.config.vocab_size) {
      throw std::invalid_argument(fmt::format(
          "data set '{}' is tokenized with a vocabulary of {} tokens, but {}'s checkpoint {} has {}: tokenize with the "
          "checkpoint's vocab.txt (leave ?vocab= out)",
          w.dataset(), vocabulary, w.model(), w.pretrained(), pretrained.config.vocab_size));
    }
    workload.model_spec.vocab_size = pretrained.config.vocab_size;
    workload.model = pretrained.network;
    workload.pretrained = pretrained.load;
  }
  workload.config = training_config(resolved);
  return workload;
}

}  // namespace jetchar::experiments
