#include "experiments/models/network.h"

namespace jetchar::experiments {

std::string_view task_name(Task task) {
  switch (task) {
    case Task::kImageClassification: return "image-classification";
    case Task::kSequenceClassification: return "sequence-classification";
    case Task::kTokenClassification: return "token-classification";
    case Task::kQuestionAnswering: return "question-answering";
    case Task::kMaskedLanguageModeling: return "masked-lm";
    case Task::kReplacedTokenDetection: return "replaced-token-detection";
  }
  return "unknown";
}

namespace {

constexpr std::int64_t kIgnoredLabel = -100;

// The tokens the discriminator judges: every one the attention mask keeps (all without a mask).
torch::Tensor judged_tokens(const torch::Tensor& output, const loaders::Batch& batch) {
  if (batch.attention_mask.defined()) return batch.attention_mask.eq(1);
  return torch::ones({output.size(0), output.size(1)}, output.options().dtype(torch::kBool));
}

}  // namespace

torch::Tensor task_loss(Task task, const torch::Tensor& logits, const loaders::Batch& batch) {
  namespace F = torch::nn::functional;
  switch (task) {
    case Task::kImageClassification:
    case Task::kSequenceClassification: return F::cross_entropy(logits, batch.targets);
    case Task::kTokenClassification:
    case Task::kMaskedLanguageModeling:
      return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), batch.targets.reshape({-1}),
                              F::CrossEntropyFuncOptions().ignore_index(kIgnoredLabel));
    case Task::kQuestionAnswering: {
      // logits [B, L, 2]: position scores for the answer's start and end token.
      auto start = F::cross_entropy(logits.select(2, 0), batch.targets.select(1, 0));
      auto end = F::cross_entropy(logits.select(2, 1), batch.targets.select(1, 1));
      return (start + end) / 2;
    }
    case Task::kReplacedTokenDetection: {
      auto masked = batch.targets.ne(kIgnoredLabel).sum().clamp_min(1);
      auto generator = logits.select(2, 2).sum() / masked;
      auto judged = judged_tokens(logits, batch);
      auto discriminator = F::binary_cross_entropy_with_logits(logits.select(2, 0).masked_select(judged),
                                                               logits.select(2, 1).masked_select(judged));
      return generator + kElectraDiscriminatorWeight * discriminator;
    }
  }
  throw std::logic_error("task_loss: unknown task");
}

ScoreTensors task_score_tensors(Task task, const torch::Tensor& logits, const loaders::Batch& batch) {
  torch::NoGradGuard no_grad;
  switch (task) {
    case Task::kImageClassification:
    case Task::kSequenceClassification:
      return {logits.argmax(1).eq(batch.targets).sum(), torch::scalar_tensor(batch.targets.size(0), torch::kLong)};
    case Task::kTokenClassification:
    case Task::kMaskedLanguageModeling: {
      auto scored = batch.targets.ne(kIgnoredLabel);
      return {logits.argmax(2).eq(batch.targets).logical_and(scored).sum(), scored.sum()};
    }
    case Task::kQuestionAnswering: {
      auto start_ok = logits.select(2, 0).argmax(1).eq(batch.targets.select(1, 0));
      auto end_ok = logits.select(2, 1).argmax(1).eq(batch.targets.select(1, 1));
      return {start_ok.logical_and(end_ok).sum(), torch::scalar_tensor(batch.targets.size(0), torch::kLong)};
    }
    case Task::kReplacedTokenDetection: {
      auto judged = judged_tokens(logits, batch);
      auto called_replaced = logits.select(2, 0).gt(0);
      auto replaced = logits.select(2, 1).gt(0.5);
      return {called_replaced.eq(replaced).logical_and(judged).sum(), judged.sum()};
    }
  }
  throw std::logic_error("task_score: unknown task");
}

Score task_score(Task task, const torch::Tensor& logits, const loaders::Batch& batch) {
  const auto tensors = task_score_tensors(task, logits, batch);
  return {tensors.correct.item<std::int64_t>(), tensors.total.item<std::int64_t>()};
}

std::int64_t parameter_count(const torch::nn::Module& module) {
  std::int64_t count = 0;
  for (const auto& parameter : module.parameters(/*recurse=*/true)) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  return count;
}

}  // namespace jetchar::experiments
