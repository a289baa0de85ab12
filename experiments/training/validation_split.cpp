#include "experiments/training/validation_split.h"

#include <fmt/format.h>

#include "loaders/text/squad_dataset.h"

namespace jetchar::experiments {

ValidationSplit open_validation_split(const loaders::DatasetSpec& train_spec, loaders::PipelineOptions pipeline,
                                      TrainingConfig& config, const loaders::text::SquadSpanOptions& spans) {
  auto spec = train_spec;
  spec.split = "validation";
  ValidationSplit split;
  split.dataset = loaders::open_dataset(spec);
  const auto& info = split.dataset->info();
  split.name = fmt::format("validation: {}", info.files.empty() ? info.name : info.files.front().string());
  // Every window of every dev question is scored, in the data set's order (SQuAD answers are
  // put together from consecutive windows by sample index).
  pipeline.shuffle = false;
  pipeline.drop_last = false;
  split.source = std::make_unique<loaders::Pipeline>(split.dataset, pipeline);
  config.eval_source = split.source.get();
  config.eval_labels = info.classes;
  config.eval_name = split.name;
  config.eval_squad = dynamic_cast<const loaders::text::SquadDataset*>(split.dataset.get());
  config.eval_squad_spans = spans;
  return split;
}

}  // namespace jetchar::experiments
