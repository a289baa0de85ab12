// The interface the runners train and time: a LibTorch module that maps a collated minibatch
// (loaders/batch.h) to logits for one task. Loss and accuracy follow from the task.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string_view>

#include "loaders/batch.h"

namespace jetchar::experiments {

enum class Task {
  kImageClassification,     // inputs float [B,C,H,W], targets int64 [B], logits [B,classes]
  kSequenceClassification,  // token ids [B,L], targets int64 [B], logits [B,classes]
  kTokenClassification,     // token ids [B,L], targets int64 [B,L] (-100 ignored), logits [B,L,classes]
  kQuestionAnswering,       // token ids [B,L], targets int64 [B,2] (start,end), logits [B,L,2]
  kMaskedLanguageModeling,  // token ids [B,L], targets int64 [B,L] (original ids where masked, -100 elsewhere),
                            // logits [B,L,vocabulary]
  kReplacedTokenDetection,  // ELECTRA pretraining (electra.h): token ids and targets as masked LM, output [B,L,3]:
                            // the discriminator's replaced-token logit, 1 where the generator replaced the token
                            // (0 elsewhere), the generator's cross-entropy at masked positions (0 elsewhere)
};

std::string_view task_name(Task task);

/// Correct predictions out of scored ones in a batch (tokens for token classification, masked
/// tokens for masked-LM pretraining, the discriminator's replaced-or-original calls on every token
/// for ELECTRA, questions with both start and end right for question answering).
struct Score {
  std::int64_t correct = 0;
  std::int64_t total = 0;
};

class Network : public torch::nn::Module {
 public:
  virtual Task task() const = 0;
  /// Logits for the batch; every tensor of the batch is already on the module's device.
  virtual torch::Tensor forward_batch(const loaders::Batch& batch) = 0;
};

/// ELECTRA's λ: the weight of the discriminator's loss beside the generator's (the paper's 50).
constexpr double kElectraDiscriminatorWeight = 50.0;

/// Cross-entropy for the task (token classification and masked LM ignore -100, so the masked-LM loss
/// is over the masked positions only; QA averages start and end; replaced-token detection is the
/// generator's masked-LM loss + λ × the discriminator's binary cross-entropy over the tokens that
/// the attention mask keeps).
torch::Tensor task_loss(Task task, const torch::Tensor& logits, const loaders::Batch& batch);
/// Correct and scored counts as tensors on the logits' device (no host sync); no autograd.
struct ScoreTensors {
  torch::Tensor correct;
  torch::Tensor total;
};
ScoreTensors task_score_tensors(Task task, const torch::Tensor& logits, const loaders::Batch& batch);
/// Counts correct predictions; no autograd.
Score task_score(Task task, const torch::Tensor& logits, const loaders::Batch& batch);

/// Number of trainable parameter elements (buffers such as BatchNorm running stats excluded).
std::int64_t parameter_count(const torch::nn::Module& module);

}  // namespace jetchar::experiments
