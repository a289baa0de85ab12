// BatchSource implementations for the runner tests: fixed batches, optionally with a known delay
// per next() so the stall/compute split can be checked against it.
#pragma once

#include <chrono>
#include <thread>
#include <vector>

#include "loaders/batch.h"

namespace jetchar::testing {

class VectorBatchSource : public loaders::BatchSource {
 public:
  explicit VectorBatchSource(std::vector<loaders::Batch> batches,
                             std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : batches_(std::move(batches)), delay_(delay) {}

  void start_epoch(std::int64_t epoch) override {
    ++epochs_started_;
    last_epoch_ = epoch;
    position_ = 0;
  }
  std::optional<loaders::Batch> next() override {
    if (position_ >= batches_.size()) return std::nullopt;
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    auto batch = batches_[position_];
    batch.index = static_cast<std::int64_t>(position_++);
    return batch;
  }
  std::int64_t batches_per_epoch() const override { return static_cast<std::int64_t>(batches_.size()); }
  std::int64_t samples_per_epoch() const override {
    std::int64_t samples = 0;
    for (const auto& batch : batches_) samples += batch.inputs.size(0);
    return samples;
  }

  int epochs_started_ = 0;
  std::int64_t last_epoch_ = -1;

 private:
  std::vector<loaders::Batch> batches_;
  std::chrono::milliseconds delay_;
  std::size_t position_ = 0;
};

}  // namespace jetchar::testing
