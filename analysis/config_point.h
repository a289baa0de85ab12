// One point per configuration (workload × power mode × other axes): the medians over its epochs,
// repetitions and devices, which is what Pareto fronts, choices and predictors work on.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/query_objectives.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

struct ConfigPoint {
  ConfigKey key;
  /// Set for an inference configuration (runs without epochs, with query latencies): time_s is
  /// then the median of this latency percentile of a query, in seconds, energy_j the median energy
  /// per query and power_w the median of energy per query / mean latency. Unset: a training
  /// configuration, judged by its epochs.
  std::optional<LatencyPercentile> query_latency;
  /// With query_latency: kThroughput makes time_s the time per sample, 1 / the median throughput
  /// (so that less is better, as for every time_s), kPerSample makes energy_j the median energy per
  /// sample. Pareto fronts and choices then weigh samples/s and J/sample.
  QuerySpeed query_speed = QuerySpeed::kLatency;
  QueryEnergy query_energy = QueryEnergy::kPerQuery;
  double time_s = 0;               ///< median epoch time (a query's latency or time per sample when query_latency)
  std::optional<double> energy_j;  ///< median epoch energy (or power × time per sample)
  std::optional<double> power_w;   ///< median average power
  std::optional<double> stall_s;
  std::optional<double> compute_s;
  LatencyMs latency;  ///< medians of each percentile column
  std::optional<double> throughput_samples_per_s;
  std::size_t samples = 0;  ///< records that went into the medians
};

struct AggregateOptions {
  /// Epoch 0 runs on a cold page cache; when a configuration has later epochs, epoch 0 is left
  /// out of its medians (the study reports it separately).
  bool skip_cold_epoch = true;
  /// The latency an inference configuration's time_s is.
  LatencyPercentile latency = LatencyPercentile::kP99;
  /// An inference configuration's time_s: that latency, or the time per sample (1 / throughput;
  /// runs without a throughput are then left out).
  QuerySpeed speed = QuerySpeed::kLatency;
  /// An inference configuration's energy_j: per query or per sample.
  QueryEnergy energy = QueryEnergy::kPerQuery;
};

/// Groups OK records that have an epoch time, or else the latency `options.latency` (inference),
/// by ConfigKey and takes medians. Records that are not OK or have neither are left out. Sorted
/// by key.
std::vector<ConfigPoint> aggregate(const std::vector<RunRecord>& records, const AggregateOptions& options = {});

/// Energy of one record: measured, else average power × time; nullopt when neither is known.
std::optional<double> record_energy_j(const RunRecord& record);
/// An inference record's energy per query (its energy_per_query_j metric); nullopt when absent.
std::optional<double> energy_per_query_j(const RunRecord& record);
/// An inference record's energy per sample (its energy_per_query_sample_j metric); nullopt when absent.
std::optional<double> energy_per_query_sample_j(const RunRecord& record);
/// An inference record's energy per query or per sample.
std::optional<double> query_energy_j(const RunRecord& record, QueryEnergy energy);

/// An inference point's latency `query_latency` in seconds, whatever its time_s is; nullopt for a
/// training point or where no run had it.
std::optional<double> query_latency_s(const ConfigPoint& p);

/// Inference points re-timed by their mean latency: the time a query's energy is spent over (power
/// × mean latency = J/query, as aggregate() computes power), so that a model fitted on them
/// predicts J/query as power × time, where time_s is a tail latency (p99) that power × time would
/// overstate. Empty when a point is not an inference one judged by latency and energy per query, or
/// has no mean latency.
std::vector<ConfigPoint> at_mean_latency(std::span<const ConfigPoint> points);

/// The units `p` is measured in, for headers: "time_s"/"energy_j" for training, "p99_ms" or
/// "samples/s" and "J/query" or "J/sample" for inference; time_value() converts time_s to the unit
/// time_header() names.
std::string time_header(const ConfigPoint& p);
std::string energy_header(const ConfigPoint& p);
double time_value(const ConfigPoint& p);

}  // namespace jetchar::analysis
