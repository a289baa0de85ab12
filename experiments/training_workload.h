// What a training run trains, built from its resolved spec: the data set (a checkpoint's
// vocabulary for text when it names none; a masked-LM model pretrained from scratch sized to the
// corpus's vocabulary), the pipeline over it (one rank's shard in data-parallel
// training), the network (new, or from workload.pretrained) and the trainer's settings. The
// executor and every rank of a data-parallel run build it here, so that they train the same thing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/models/registry.h"
#include "experiments/training/training_runner.h"
#include "loaders/dataset_spec.h"
#include "loaders/pipeline.h"
#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

struct TrainingWorkload {
  loaders::DatasetSpec dataset_spec;
  std::shared_ptr<loaders::Dataset> dataset;
  std::unique_ptr<loaders::Pipeline> pipeline;
  /// The registry's, its vocabulary the checkpoint's when one was loaded.
  ModelSpec model_spec;
  std::shared_ptr<Network> model;
  std::optional<PretrainedLoad> pretrained;
  TrainingConfig config;
};

/// `resolved` is a run's resolved spec; shard `shard_index` of `shard_count` is the rank's.
/// `trained` (a pretraining phase after the first) is the network to train on instead of a new
/// or pretrained one; the data set must be tokenized with its vocabulary.
TrainingWorkload open_training_workload(const proto::ExperimentSpec& resolved, std::int64_t shard_index = 0,
                                        std::int64_t shard_count = 1, const TrainingWorkload* trained = nullptr);

}  // namespace jetchar::experiments
