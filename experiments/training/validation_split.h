// The split a training run is judged on after every epoch: the validation split of its data set
// (CoNLL-2003's valid.txt, SQuAD's dev file; loaders::DatasetSpec split "validation"), never the
// training file. `train --eval` and a sweep's workload.evaluate open it the same way.
#pragma once

#include <memory>
#include <string>

#include "experiments/training/training_runner.h"
#include "loaders/dataset_spec.h"
#include "loaders/pipeline.h"
#include "loaders/text/squad_predictions.h"

namespace jetchar::experiments {

/// An opened validation split; `config` (given to open_validation_split) points into it, so it
/// must outlive the training run.
struct ValidationSplit {
  std::shared_ptr<const loaders::Dataset> dataset;
  std::unique_ptr<loaders::Pipeline> source;  ///< in order, not shuffled
  /// "validation: FILE" (the split's file, or the data set's name when it has none).
  std::string name;
};

/// Opens the validation split of `train_spec` (same kind, path and options) with `pipeline`'s
/// batch size and workers, in order, and sets `config`'s eval_source, eval_labels (the split's
/// label names, for entity scores), eval_name and, for SQuAD, eval_squad with `spans`. Throws
/// std::invalid_argument naming what was looked for when the data set has no validation split.
ValidationSplit open_validation_split(const loaders::DatasetSpec& train_spec, loaders::PipelineOptions pipeline,
                                      TrainingConfig& config, const loaders::text::SquadSpanOptions& spans = {});

}  // namespace jetchar::experiments
