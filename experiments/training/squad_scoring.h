// SQuAD answers from a question-answering model's output: each row of a batch is one window of
// the evaluated SquadDataset, and its start and end logits go to the n-best span search
// (loaders/text/squad_predictions.h), which picks each question's answer over its windows.
#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "loaders/text/squad_predictions.h"

namespace jetchar::experiments {

/// Adds one batch: `logits` [B, L, 2] (start, end) whose row r is sample `first_sample` + r of
/// the predictions' data set. Throws std::invalid_argument for another shape or a sample out of
/// range.
void add_squad_logits(loaders::text::SquadPredictions& predictions, const torch::Tensor& logits,
                      std::int64_t first_sample);

}  // namespace jetchar::experiments
