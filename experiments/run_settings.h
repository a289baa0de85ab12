// A run's settings, from the one spec every route fills: `sweep run` reads it from a file, `train`
// and `infer` build it from their options. Here the spec's defaults are resolved and it becomes
// what the runners take (the pipeline's options, the trainer's config), so that a command and a
// sweep with the same settings run the same thing.
#pragma once

#include "experiments/inference/inference_runner.h"
#include "experiments/training/precision.h"
#include "experiments/training/training_runner.h"
#include "loaders/pipeline.h"
#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

/// The settings a run actually used: the spec with every default filled in.
proto::ExperimentSpec resolve_defaults(const proto::ExperimentSpec& spec);

Precision precision_of(const proto::WorkloadSpec& workload);
proto::Precision proto_precision(Precision precision);

/// The inference runner's scenario of the spec's (unset: back-to-back batches).
InferenceScenario scenario_of(const proto::InferenceSpec& inference);

/// The training pipeline's options from the resolved spec (shuffled unless loader.shuffle is false,
/// seeded by the workload).
loaders::PipelineOptions training_pipeline_options(const proto::ExperimentSpec& spec);

/// The trainer's settings from the resolved spec; the run's hooks (progress, stopping, pacing,
/// evaluation) are the caller's to add. Throws std::invalid_argument for a device this LibTorch
/// cannot use.
TrainingConfig training_config(const proto::ExperimentSpec& spec);

/// True when workload.distributed asks for more than one rank.
bool data_parallel(const proto::WorkloadSpec& workload);

/// LibTorch's intra-op threads for one rank: workload.threads, or `machine_default` shared by the
/// node's ranks (torchrun likewise gives each of several ranks one OpenMP thread unless told).
int rank_threads(const proto::WorkloadSpec& workload, int machine_default);

}  // namespace jetchar::experiments
