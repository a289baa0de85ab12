// The contract between the data path (loaders/) and the runners (experiments/): a source of
// collated minibatches, epoch by epoch.
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <optional>

namespace jetchar::loaders {

/// One collated minibatch. Tensors are contiguous, batch-first, on the CPU (pinned when asked).
struct Batch {
  /// Images: float32 [B, C, H, W]; token tasks: int64 token ids [B, L].
  torch::Tensor inputs;
  /// Classification: int64 [B]; token classification: int64 [B, L] (-100 = ignored);
  /// question answering: int64 [B, 2] (start, end token).
  torch::Tensor targets;
  /// Token tasks only (undefined otherwise): int64 [B, L] 1 = real token, and segment ids.
  torch::Tensor attention_mask;
  torch::Tensor token_type_ids;
  /// Position of this batch within its epoch, from 0.
  std::int64_t index = 0;
};

/// A source of batches. Calls are made from one consumer thread (the training loop).
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  /// Begins epoch `epoch` (0-based): reshuffles with the seed and the epoch number.
  virtual void start_epoch(std::int64_t epoch) = 0;
  /// The next batch of the current epoch, or nullopt once the epoch is exhausted.
  virtual std::optional<Batch> next() = 0;
  /// Number of batches next() yields per epoch.
  virtual std::int64_t batches_per_epoch() const = 0;
  /// Samples per epoch (after drop_last).
  virtual std::int64_t samples_per_epoch() const = 0;
};

}  // namespace jetchar::loaders
