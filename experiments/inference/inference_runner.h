// Timed inference, on synthetic inputs of a model's format or on a data set's samples
// (query_inputs.h: SQuAD's dev windows for the bert-*-qa models): warm-up queries first (not
// recorded), then queries of one batch each, each timed from call to device synchronize, until
// both the minimum query count and the minimum duration are met (as MLPerf LoadGen requires both).
// The timed span's bounds are kept on the monotonic clock, so that a measurement session can
// give its energy per query (query_energy.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "experiments/inference/latency_stats.h"
#include "experiments/inference/query_inputs.h"
#include "experiments/inference/server_scenario.h"
#include "experiments/models/registry.h"
#include "experiments/training/memory_monitor.h"
#include "experiments/training/precision.h"
#include "experiments/training/training_runner.h"
#include "sysfs/root.h"

namespace jetchar::experiments {

/// MLPerf Inference's scenarios as its LoadGen defines them (mlcommons/inference,
/// loadgen/test_settings.h). kBatches, kSingleStream (batch 1) and kOffline time back-to-back
/// queries of batch_size samples and differ in the figure that answers them: every percentile,
/// the p90 latency, samples/s. kServer searches the highest Poisson arrival rate of one-sample
/// queries whose p99 latency is within a bound (server_scenario.h).
enum class InferenceScenario { kBatches, kSingleStream, kOffline, kServer };
/// "batches", "single-stream", "offline", "server".
std::string_view scenario_name(InferenceScenario scenario);

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
  /// The queries' inputs from a data set (collated for this batch size); null: synthetic inputs.
  /// Must outlive the run.
  const QueryInputs* inputs = nullptr;
  /// Called after every query, warm-up included, outside its latency (watchdog pings: a long
  /// inference run must be seen to progress).
  std::function<void()> on_query;
  /// Asked after every query: true ends the run there (a signal), with what was timed so far.
  std::function<bool()> stop_requested;
  /// A simulated board's time model (jetson/simulated/modelled_time_pacer.h): called when a
  /// query's outputs are ready (after its synchronize), warm-up included, with when it began and
  /// its samples; waits until the mode's modelled time has passed and returns when the board's
  /// query ended: now, or earlier when the host overran it (back-to-back queries leave that delay
  /// out: InferenceResult::host_delay_ns). Unset: the host's time.
  std::function<std::chrono::steady_clock::time_point(std::chrono::steady_clock::time_point query_start,
                                                      std::int64_t samples)>
      pace_query;
  /// kServer, with pace_query: told when the server waits for queries (true) and when a batch
  /// begins (false), so that a simulated board's power idles between batches
  /// (jetson::MinibatchPacer::set_idle).
  std::function<void(bool idle)> board_idle;
  InferenceScenario scenario = InferenceScenario::kBatches;
  /// kServer: a rate passes when its p99 latency is at most this; batch_size is the largest batch
  /// the server forms from queued queries; min_queries and min_duration_s size each trial.
  double latency_bound_ms = kDefaultServerLatencyBoundMs;
  /// kServer: how many times slower than modelled a simulated board runs (experiments/dilated_time.h),
  /// asked once the warm-up has calibrated it: the bound and the trials' durations stretch alike,
  /// and the figures are divided back afterwards. Unset: 1.
  std::function<double()> time_dilation;
  /// kServer: told each trial as it ends, on the host's clock (a dilated run's rate and p99 as run).
  std::function<void(const ServerTrial&)> on_server_trial;
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
  /// "synthetic" or the data set's name (QueryInputs::name).
  std::string inputs = "synthetic";
  /// Distinct samples the queries cycled through; nullopt for synthetic inputs.
  std::optional<std::int64_t> input_samples;
  std::vector<std::int64_t> latencies_ns;
  std::optional<LatencyStats> latency;
  std::int64_t timed_ns = 0;  ///< wall time of the timed queries (the host's delay left out)
  /// Paced queries (back to back, or the server's best trial): the host's time past the board's,
  /// left out of the latencies and timed_ns (but inside the timed span's clock readings,
  /// timed_begin_ns .. timed_end_ns).
  std::int64_t host_delay_ns = 0;
  /// The timed queries' span on the monotonic clock (sysfs::monotonic_ns, the clock of the
  /// measurement session's samples); timed_end_ns is 0 when the run failed before its end.
  std::int64_t timed_begin_ns = 0;
  std::int64_t timed_end_ns = 0;
  double samples_per_s = 0;  ///< after warm-up
  MemoryPeaks memory;
  InferenceScenario scenario = InferenceScenario::kBatches;
  /// kServer: the search. The latencies, their summary, the timed span and samples_per_s are its
  /// highest passing trial's (none when no rate passed).
  std::optional<ServerSearch> server;
};

/// With "scenario", "headline" (the scenario's answer: {"figure": "p90_ms" | "samples_per_s" |
/// "max_qps", "value", and for the server "p99_ms"}; null for kBatches) and "server" when searched.
nlohmann::json to_json(const InferenceResult& result);

/// Runs `model` (built from `spec`). Invalid settings throw std::invalid_argument; OOM and
/// failures are recorded in the status.
InferenceResult run_inference(Network& model, const ModelSpec& spec, const InferenceConfig& config,
                              const sysfs::Root& root);

}  // namespace jetchar::experiments
