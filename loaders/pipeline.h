// The multi-worker prefetching data pipeline: PyTorch DataLoader semantics (num_workers 0 = load
// in the consumer's thread; N worker threads, batch b made by worker b % N, at most prefetch_factor
// batches ahead per worker; shuffle with a seed; drop_last; pin_memory) with batches collated in
// place into preallocated contiguous tensors, and stall / busy / bytes instrumentation.
//
// Determinism: the order of epoch e is a Fisher-Yates shuffle driven by Rng(seed, e, ~0), and
// sample i's augmentations draw from Rng(seed, e, i), so results do not depend on num_workers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "loaders/batch.h"
#include "loaders/data_path.h"
#include "loaders/dataset.h"
#include "loaders/epoch_stats.h"

namespace jetchar::loaders {

struct PipelineOptions {
  std::int64_t batch_size = 16;
  int num_workers = 0;
  int prefetch_factor = 2;  ///< batches in flight per worker (PyTorch's prefetch_factor)
  bool shuffle = true;
  std::uint64_t seed = 0;
  bool drop_last = false;
  /// Page-locked batch memory for faster host-to-device copies. Only possible with CUDA; where it
  /// is not, the request is recorded and plain memory is used (see Pipeline::pinned()).
  bool pin_memory = false;
  /// Data-parallel ranks: this pipeline yields shard `shard_index` of `shard_count`, the epoch
  /// order's samples at shard_index, shard_index + shard_count, ... (torch's DistributedSampler),
  /// floor(size / shard_count) of them so that every rank runs the same number of minibatches.
  /// Step k of the ranks together covers the samples step k of one pipeline with a batch
  /// shard_count times larger covers.
  std::int64_t shard_count = 1;
  std::int64_t shard_index = 0;
};

/// An error while producing a sample (corrupt or missing file, ...): bad input, so it derives from
/// std::invalid_argument; the message names the file and offset or line.
class SampleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Pipeline : public BatchSource {
 public:
  /// Throws std::invalid_argument for batch_size < 1, num_workers < 0, prefetch_factor < 1 or an
  /// empty data set.
  Pipeline(std::shared_ptr<const Dataset> dataset, PipelineOptions options);
  ~Pipeline() override;
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  void start_epoch(std::int64_t epoch) override;
  /// Blocks until the next batch is ready. The batch's tensors are reused for a later batch once
  /// the caller drops them (if it keeps them, fresh ones are allocated instead). Throws SampleError
  /// when a sample could not be produced.
  std::optional<Batch> next() override;
  std::int64_t batches_per_epoch() const override;
  std::int64_t samples_per_epoch() const override;

  const PipelineOptions& options() const { return options_; }
  const Dataset& dataset() const { return *dataset_; }
  /// Whether batches are in pinned memory (pin_memory asked and CUDA present).
  bool pinned() const { return pinned_; }
  /// Statistics of the current (or last) epoch.
  const EpochStats& epoch_stats() const { return stats_; }
  /// Samples residency and disk I/O around every epoch from now on.
  void attach_data_path(std::shared_ptr<DataPathMonitor> monitor) { monitor_ = std::move(monitor); }
  /// The sample order of epoch `epoch` (identity when shuffle is off), this shard's part of it.
  std::vector<std::int64_t> epoch_order(std::int64_t epoch) const;

 private:
  struct Slot {
    torch::Tensor inputs, targets, attention_mask, token_type_ids;
    std::int64_t batch = -1;  // batch index this slot holds (ready) in the current generation
    bool ready = false;
    std::int64_t count = 0;
    std::string error;
  };
  struct EpochPlan {
    std::uint64_t generation = 0;
    std::int64_t epoch = 0;
    std::int64_t batches = 0;
    std::shared_ptr<const std::vector<std::int64_t>> order;
  };

  void worker_loop(int worker);
  // Fills `slot` with batch `batch` of `plan` (no lock held). Returns bytes read; sets slot.error.
  std::uint64_t fill(Slot& slot, const EpochPlan& plan, std::int64_t batch);
  void ensure_buffers(Slot& slot);
  Slot& slot_for(std::int64_t batch);
  void finish_epoch(bool complete);

  std::shared_ptr<const Dataset> dataset_;
  PipelineOptions options_;
  bool pinned_ = false;
  int slots_per_worker_ = 1;
  std::shared_ptr<DataPathMonitor> monitor_;

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable ready_cv_;
  bool stop_ = false;
  EpochPlan plan_;
  std::vector<std::int64_t> next_k_;      // per worker: next of its batches to make
  std::vector<std::int64_t> taken_k_;     // per worker: its batches the consumer has asked for
  std::vector<std::int64_t> released_k_;  // per worker: its batches the consumer is done with
  std::vector<std::vector<Slot>> slots_;  // [worker][k % slots_per_worker_]
  std::vector<std::int64_t> busy_ns_;     // per worker, this epoch
  std::uint64_t bytes_read_ = 0;
  std::vector<std::thread> threads_;

  // Consumer side (one thread).
  std::int64_t next_batch_ = 0;
  std::int64_t held_batch_ = -1;
  bool epoch_open_ = false;
  std::int64_t epoch_start_ns_ = 0;
  EpochStats stats_;
};

}  // namespace jetchar::loaders
