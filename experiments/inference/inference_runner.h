// Timed inference on synthetic inputs of a model's format: warm-up queries first (not recorded),
// then queries of one batch each, each timed from call to device synchronize, until both the
// minimum query count and the minimum duration are met (as MLPerf LoadGen requires both).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "experiments/inference/latency_stats.h"
#include "experiments/models/registry.h"
#include "experiments/training/memory_monitor.h"
#include "experiments/training/precision.h"
#include "experiments/training/training_runner.h"
#include "sysfs/root.h"

namespace jetchar::experiments {

struct InferenceConfig {
  torch::Device device = torch::kCPU;
  std::int64_t batch_size = 1;
  /// Token models only; default: the model's default sequence length.
  std::optional<std::int64_t> sequence_length;
  std::int64_t warmup = 10;
  /// Minimum number of timed queries (default 100 when no duration is given).
  std::optional<std::int64_t> min_queries;
  /// Minimum timed duration, seconds.
  std::optional<double> min_duration_s;
  Precision precision = Precision::kFp32;
  std::uint64_t seed = 0;
  std::optional<std::int64_t> num_classes;
  /// Called after every query, warm-up included, outside its latency (watchdog pings: a long
  /// inference run must be seen to progress).
  std::function<void()> on_query;
};

struct InferenceResult {
  RunStatus status = RunStatus::kOk;
  std::string error;
  std::string model;
  std::string device;
  std::string precision;
  std::int64_t batch_size = 0;
  std::optional<std::int64_t> sequence_length;
  std::int64_t warmup = 0;
  int threads = 0;
  std::vector<std::int64_t> latencies_ns;
  std::optional<LatencyStats> latency;
  std::int64_t timed_ns = 0;  ///< wall time of the timed queries
  double samples_per_s = 0;   ///< after warm-up
  MemoryPeaks memory;
};

nlohmann::json to_json(const InferenceResult& result);

/// Runs `model` (built from `spec`). Invalid settings throw std::invalid_argument; OOM and
/// failures are recorded in the status.
InferenceResult run_inference(Network& model, const ModelSpec& spec, const InferenceConfig& config,
                              const sysfs::Root& root);

}  // namespace jetchar::experiments
