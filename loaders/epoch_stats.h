// What the data pipeline measured in one epoch (no tensors: runners, the CLI and result writers
// include this without LibTorch).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "loaders/data_path.h"

namespace jetchar::loaders {

struct EpochStats {
  std::int64_t epoch = -1;
  std::int64_t batches = 0;  ///< batches delivered so far
  std::int64_t samples = 0;
  /// From start_epoch() to the end of the epoch (the call of next() that found it exhausted).
  std::int64_t wall_ns = 0;
  /// Per batch: how long next() waited for it (the fetch stall before any host-to-device copy;
  /// with 0 workers the whole load, as PyTorch's DataLoader in the training thread).
  std::vector<std::int64_t> batch_wait_ns;
  std::int64_t stall_ns = 0;  ///< sum of batch_wait_ns
  /// Batches a worker had finished before next() asked for them (prefetch hits; 0 with 0 workers):
  /// what hides the load behind compute, counted rather than timed.
  std::int64_t batches_ready_on_request = 0;
  /// Per worker thread: time spent loading and collating (0 workers: one entry, the consumer's).
  std::vector<std::int64_t> worker_busy_ns;
  std::uint64_t bytes_read = 0;
  bool complete = false;  ///< the epoch ran to its end
  /// Page cache and block-device I/O of the data set (when a DataPathMonitor is attached).
  std::optional<DataPathEpoch> data_path;

  double samples_per_s() const { return wall_ns > 0 ? static_cast<double>(samples) * 1e9 / wall_ns : 0.0; }
};

}  // namespace jetchar::loaders
