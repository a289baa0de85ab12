// Memory figures of a run: the process's resident set (sampled VmRSS peak during the run and the
// lifetime VmHWM), the lowest system MemAvailable while it ran (on a Jetson the GPU allocates from
// the same DRAM, so this is the headroom that matters), and the CUDA caching allocator's peaks
// where LibTorch has CUDA. A background thread samples /proc through sysfs::Root.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "sysfs/root.h"

namespace jetchar::experiments {

struct MemoryPeaks {
  /// Highest VmRSS seen by the sampler during the run, KiB.
  std::optional<std::uint64_t> peak_rss_kib;
  /// VmHWM at the end: the process's lifetime peak (includes anything before the run), KiB.
  std::optional<std::uint64_t> process_peak_rss_kib;
  /// Lowest MemAvailable seen during the run, KiB.
  std::optional<std::uint64_t> min_mem_available_kib;
  std::optional<std::uint64_t> mem_total_kib;
  /// CUDA caching allocator peaks since the run started, bytes.
  std::optional<std::uint64_t> cuda_peak_allocated_bytes;
  std::optional<std::uint64_t> cuda_peak_reserved_bytes;
  std::int64_t samples = 0;
};

nlohmann::json to_json(const MemoryPeaks& peaks);

class MemoryMonitor {
 public:
  /// `period` between samples; the monitor starts sampling at construction.
  MemoryMonitor(const sysfs::Root& root, torch::Device device,
                std::chrono::milliseconds period = std::chrono::milliseconds(50));
  ~MemoryMonitor();
  MemoryMonitor(const MemoryMonitor&) = delete;
  MemoryMonitor& operator=(const MemoryMonitor&) = delete;

  /// Takes one sample now (e.g. at an epoch boundary).
  void sample();
  /// Stops the sampler and returns the figures; further calls return the same figures.
  MemoryPeaks stop();

 private:
  void run();

  const sysfs::Root& root_;
  torch::Device device_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool stopped_ = false;
  MemoryPeaks peaks_;
  std::thread thread_;
};

}  // namespace jetchar::experiments
