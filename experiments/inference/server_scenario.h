// MLPerf Inference's Server scenario as its LoadGen defines it (mlcommons/inference,
// loadgen/test_settings.h): queries of one sample arrive as a Poisson process at a target rate,
// and a rate passes when the 99th-percentile latency is within a bound (100 ms unless set); the
// peak search (LoadGen's FindPeakPerformance mode) looks for the highest rate that passes.
//
// Here one server takes the queries in arrival order: when it is free it takes every query that
// has arrived, up to `max_batch` of them (dynamic batching; 1 = none), runs them as one batch
// through the runner's query function (so a simulated board paces it), and each query's latency
// is the batch's completion minus the query's arrival. The clock is the host's: a dilated run
// (experiments/dilated_time.h) passes a bound k times the spec's and divides the figures by k
// afterwards; a batch the host overran even then completes at the board's time, and the trial's
// clock stops for the host's delay. Torch-free: the query is a callback.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/inference/latency_stats.h"
#include "proto/run_result.pb.h"

namespace jetchar::experiments {

/// LoadGen's default Server latency bound.
inline constexpr double kDefaultServerLatencyBoundMs = 100;

struct ServerSettings {
  std::int64_t latency_bound_ns = 100'000'000;  ///< a rate passes when p99 <= this
  std::int64_t max_batch = 1;                   ///< the most queued queries one batch takes
  std::int64_t min_queries = 100;               ///< per trial
  double min_duration_s = 0;                    ///< per trial: a trial at rate λ issues max(min_queries, λ·this)
  std::uint64_t seed = 0;                       ///< of the arrival times (every trial draws the same sequence)
};

/// One rate tried.
struct ServerTrial {
  double rate_qps = 0;
  std::int64_t queries = 0;  ///< completed; fewer than planned when the trial stopped once it had failed
  std::int64_t planned = 0;  ///< queries the trial was to issue
  std::int64_t p99_ns = 0;   ///< over the completed queries
  bool passed = false;
  std::int64_t batches = 0;  ///< batches the server ran (queries / batches = mean dynamic batch)
};

/// One trial's queries, as run_server_trial returns them.
struct ServerTrialRun {
  ServerTrial trial;
  std::vector<std::int64_t> latencies_ns;  ///< in arrival order
  std::int64_t span_ns = 0;                ///< from the trial's start (arrivals count from it) to the last completion
  /// The host's time past the board's completions, left out of the latencies and the span: the
  /// trial's clock stops for it (arrivals after it are not queued behind the host's delay).
  std::int64_t host_delay_ns = 0;
  std::int64_t begin_monotonic_ns = 0;  ///< the span on the monotonic clock (sysfs::monotonic_ns)
  std::int64_t end_monotonic_ns = 0;
  bool stopped = false;  ///< a stop request ended it
};

struct ServerSearch {
  ServerSettings settings;
  double capacity_qps = 0;          ///< the ceiling: back-to-back queries of the largest batch, samples per second
  double start_qps = 0;             ///< the first rate tried (kServerStartFraction of the capacity)
  std::vector<ServerTrial> trials;  ///< in the order run
  /// The highest passing trial's run (trials[best]); unset when no rate passed.
  std::optional<std::size_t> best;
  ServerTrialRun best_run;
  bool stopped = false;  ///< a stop request ended the search
  /// The highest passing rate, and its p99.
  std::optional<double> max_qps() const;
  std::optional<std::int64_t> max_qps_p99_ns() const;
};

/// Runs one batch of `samples` queued queries and returns when its outputs are ready, with when
/// they were ready on the board's clock: now, or earlier when the host overran a simulated board's
/// modelled time (experiments/inference/inference_runner.h's pace_query).
using ServeBatch = std::function<std::chrono::steady_clock::time_point(std::int64_t samples)>;
/// True ends the trial or the search at the next query (a signal).
using StopRequested = std::function<bool()>;
/// Told each trial as it ends (a progress line per trial).
using TrialDone = std::function<void(const ServerTrial&)>;

/// The search's constants (server_scenario.cpp says why).
inline constexpr double kServerStartFraction = 0.5;       ///< first rate, of the measured capacity
inline constexpr double kServerRelativePrecision = 0.05;  ///< bisect until (fail − pass) / pass <= this
inline constexpr int kServerMaxTrials = 16;               ///< a bound only: a search takes at most about 10

/// Arrival times (ns after the trial's start, ascending) of `count` queries at `rate_qps`:
/// exponential inter-arrival times drawn from `seed` (mt19937_64, inverse transform), the same
/// sequence for one seed on every platform, scaled by 1 / rate.
std::vector<std::int64_t> poisson_arrivals_ns(double rate_qps, std::int64_t count, std::uint64_t seed);

/// The queries a trial at `rate_qps` issues: max(min_queries, ⌈rate × min_duration_s⌉).
std::int64_t server_trial_queries(const ServerSettings& settings, double rate_qps);

/// One trial at `rate_qps`, on the host's clock. It stops early, failed, once more queries
/// overran the bound than p99 allows (the rest could not make it pass).
ServerTrialRun run_server_trial(const ServerSettings& settings, double rate_qps, const ServeBatch& serve,
                                const StopRequested& stop = {});

/// The highest rate whose p99 is within the bound: from kServerStartFraction × `capacity_qps`
/// (samples per second of back-to-back queries of the largest batch, the most a server can
/// sustain), doubling while trials pass but never past the capacity (halving, at most three
/// times, while they fail), then bisecting between the highest pass and the lowest fail to
/// kServerRelativePrecision; at most kServerMaxTrials trials. Nothing passes when even a sixteenth
/// of the capacity fails (one query takes about the bound).
ServerSearch find_peak_server_qps(const ServerSettings& settings, double capacity_qps, const ServeBatch& serve,
                                  const StopRequested& stop = {}, const TrialDone& trial_done = {});

/// {"latency_bound_ms", "max_batch", "capacity_qps", "start_qps", "max_qps", "p99_ms", "trials": [{"rate_qps",
/// "queries", "planned", "p99_ms", "passed", "batches"}], "stopped"}; max_qps and p99_ms are null
/// when no rate passed.
nlohmann::json to_json(const ServerSearch& search);

/// The record's form (RunResult.server).
proto::ServerScenarioResult to_proto(const ServerSearch& search);

}  // namespace jetchar::experiments
