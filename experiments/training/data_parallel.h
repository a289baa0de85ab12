// What the training loop asks of data-parallel training (experiments/distributed/ carries it out
// over c10d): the replicas start equal, each optimizer step's gradients are averaged over the
// ranks, the epoch's sums are the world's, and every rank stops at the same minibatch: a rank's
// request to stop travels with the next step's gradients, and at the end of the epoch. Kept apart
// from c10d so that the loop compiles without its headers.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

#include "experiments/models/network.h"

namespace jetchar::experiments {

/// One optimizer step's all-reduce, as the rank saw it.
struct StepCommunication {
  std::int64_t allreduce_ns = 0;  ///< each bucket's launch to its completion, summed
  std::int64_t exposed_ns = 0;    ///< waited for after the backward ended
  std::int64_t bytes = 0;         ///< gradient bytes all-reduced

  StepCommunication& operator+=(const StepCommunication& other) {
    allreduce_ns += other.allreduce_ns;
    exposed_ns += other.exposed_ns;
    bytes += other.bytes;
    return *this;
  }
};

class DataParallel {
 public:
  virtual ~DataParallel() = default;
  virtual std::int64_t rank() const = 0;
  virtual std::int64_t world_size() const = 0;
  /// Makes every replica rank 0's (parameters and buffers) and hooks its gradients. Attaching the
  /// same model again (a later pretraining phase) changes nothing; another model is refused.
  virtual void attach(Network& model) = 0;
  /// The next backward all-reduces the gradients, bucket by bucket as they become ready, and with
  /// them whether this rank asks to stop (`stop`): no collective of its own per step.
  virtual void arm(bool stop) = 0;
  /// After that backward: waits for the all-reduces and leaves the averaged gradients in place.
  virtual StepCommunication finish() = 0;
  /// After finish(): whether any rank asked to stop with this step (the same on every rank).
  virtual bool world_stops() const = 0;
  /// Sums each tensor over the ranks, in place.
  virtual void sum(std::vector<torch::Tensor>& tensors) = 0;
  /// True on every rank when `stop` is true on any.
  virtual bool any(bool stop) = 0;
  /// Every rank's `row` (a 1-D float64 tensor of one length), stacked in rank order.
  virtual torch::Tensor gather(const torch::Tensor& row) = 0;
};

}  // namespace jetchar::experiments
