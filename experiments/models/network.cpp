#include "experiments/models/network.h"

namespace jetchar::experiments {

std::string_view task_name(Task task) {
  switch (task) {
    case Task::kImageClassification: return "image-classification";
    case Task::kSequenceClassification: return "sequence-classification";
    case Task::kTokenClassification: return "token-classification";
    case Task::kQuestionAnswering: return "question-answering";
    case Task::kMaskedLanguageModeling: return "masked-lm";
  }
  return "unknown";
}

namespace {

constexpr std::int64_t kIgnoredLabel = -100;

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
  }
  throw std::logic_error("task_loss: unknown task");
}

Score task_score(Task task, const torch::Tensor& logits, const loaders::Batch& batch) {
  torch::NoGradGuard no_grad;
  Score score;
  switch (task) {
    case Task::kImageClassification:
    case Task::kSequenceClassification:
      score.correct = logits.argmax(1).eq(batch.targets).sum().item<std::int64_t>();
      score.total = batch.targets.size(0);
      break;
    case Task::kTokenClassification:
    case Task::kMaskedLanguageModeling: {
      auto scored = batch.targets.ne(kIgnoredLabel);
      score.correct = logits.argmax(2).eq(batch.targets).logical_and(scored).sum().item<std::int64_t>();
      score.total = scored.sum().item<std::int64_t>();
      break;
    }
    case Task::kQuestionAnswering: {
      auto start_ok = logits.select(2, 0).argmax(1).eq(batch.targets.select(1, 0));
      auto end_ok = logits.select(2, 1).argmax(1).eq(batch.targets.select(1, 1));
      score.correct = start_ok.logical_and(end_ok).sum().item<std::int64_t>();
      score.total = batch.targets.size(0);
      break;
    }
  }
  return score;
}

std::int64_t parameter_count(const torch::nn::Module& module) {
  std::int64_t count = 0;
  for (const auto& parameter : module.parameters(/*recurse=*/true)) {
    if (parameter.requires_grad()) count += parameter.numel();
  }
  return count;
}

}  // namespace jetchar::experiments
