// Whether a data set's samples can feed a model: the input's element type and shape and the
// target's shape must be what the model's task consumes. `jetchar train` asks before it builds
// the pipeline, so a mismatch is one clear error instead of a shape error deep inside LibTorch.
#pragma once

#include "experiments/models/registry.h"
#include "loaders/dataset.h"

namespace jetchar::experiments {

/// Image models: float input {C, H, W} with the model's channel count, one class per sample.
/// Token models: int64 input {L}; sequence classification takes one class per sample, token
/// classification one per token ({L}), question answering an answer span ({2}).
bool model_fits_dataset(const ModelSpec& model, const loaders::SampleLayout& layout);

/// Throws std::invalid_argument naming the model (task, input) and the data set (input, target
/// shape) when model_fits_dataset() is false.
void require_model_fits_dataset(const ModelSpec& model, const loaders::DatasetInfo& dataset);

}  // namespace jetchar::experiments
