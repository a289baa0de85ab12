// Data-parallel training over a c10d process group, as PyTorch's DistributedDataParallel does it
// (torch/csrc/distributed/c10d/reducer.cpp): the parameters are put in buckets in reverse order
// (the order the backward produces their gradients), the first bucket small so that
// communication starts early; a post-hook on each parameter's gradient accumulator marks it ready,
// and a bucket whose gradients are all ready is flattened and all-reduced asynchronously while the
// backward goes on. Buckets are launched in order on every rank, as collectives must be; one whose
// parameters got no gradient (an unused head) is launched after the backward. finish() waits,
// divides by the world size and copies the averages back: what it waited is the exposed
// communication. The first bucket carries one more element, the rank's stop flag, summed over the
// ranks: DDP has no such flag, and a collective of its own every step costs a small model dearly.
#pragma once

#include <memory>
#include <vector>

#include "experiments/distributed/rank_group.h"
#include "experiments/training/data_parallel.h"

namespace jetchar::experiments::distributed {

class GradientAllReduce : public DataParallel {
 public:
  /// DDP's defaults: a 1 MiB first bucket, 25 MiB for the rest.
  static constexpr std::int64_t kFirstBucketBytes = 1 << 20;
  static constexpr std::int64_t kBucketBytes = 25 << 20;

  /// `group` must be joined and outlive this.
  explicit GradientAllReduce(RankGroup& group);
  ~GradientAllReduce() override;

  std::int64_t rank() const override;
  std::int64_t world_size() const override;
  void attach(Network& model) override;
  void arm(bool stop) override;
  StepCommunication finish() override;
  bool world_stops() const override;
  void sum(std::vector<torch::Tensor>& tensors) override;
  bool any(bool stop) override;
  torch::Tensor gather(const torch::Tensor& row) override;

  /// The buckets' sizes in bytes, in launch order (after attach()).
  std::vector<std::int64_t> bucket_bytes() const;

 private:
  struct State;
  RankGroup& group_;
  std::shared_ptr<State> state_;  // shared with the hooks, which outlive this object in the graph
};

}  // namespace jetchar::experiments::distributed
