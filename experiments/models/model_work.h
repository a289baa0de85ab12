// The work one sample asks of a board, counted from the model definition: what the simulated
// board's time model (jetson/simulated/simulated_time_model.h) turns into a minibatch's time.
#pragma once

#include <cstdint>
#include <vector>

#include "experiments/models/network.h"
#include "experiments/models/registry.h"
#include "jetson/simulated/simulated_time_model.h"

namespace jetchar::experiments {

/// Forward MACs, counted layers and their output elements per sample (one shapes-only forward
/// pass at `input`, as macs_per_sample counts), and the model's trainable parameters and
/// parameter tensors. The model's training/eval mode is left as it was.
jetson::ModelWork count_model_work(Network& model, const ModelSpec& spec, const std::vector<std::int64_t>& input);

}  // namespace jetchar::experiments
