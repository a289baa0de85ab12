// Entity-level scores of a token-classification model, as the CoNLL-2003 write-ups report them
// (loaders/text/conll_evaluation.h): per sample, the scored tokens (target != -100: the first
// piece of every word, as the data set labels them) give the sentence's gold and predicted tags.
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

#include "loaders/text/conll_evaluation.h"

namespace jetchar::experiments {

/// Adds one batch: `logits` [B,L,labels], `targets` [B,L] (-100 = not scored); `labels` names
/// label ids. Throws std::invalid_argument when a target or prediction has no name in `labels`.
void add_entity_predictions(loaders::text::EntityEvaluator& evaluator, const torch::Tensor& logits,
                            const torch::Tensor& targets, const std::vector<std::string>& labels);

}  // namespace jetchar::experiments
