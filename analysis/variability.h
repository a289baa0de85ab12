// The study's variability analysis: how much epoch time and energy vary across the epochs of one
// run, across repetitions of a configuration, and across devices of the same kind.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/bootstrap.h"
#include "analysis/query_objectives.h"
#include "analysis/run_record.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {

enum class VariabilityLevel {
  kEpochs,       ///< epochs of one run (device, repetition fixed); cold epoch 0 left out when others exist
  kRepetitions,  ///< per-run medians of one configuration on one device
  kDevices,      ///< per-device medians of one configuration
};

std::string_view to_string(VariabilityLevel level);

struct VariabilityRow {
  ConfigKey key;
  /// Set for an inference configuration (runs without epochs): time_s is then this latency of a
  /// query in seconds, or the throughput in samples/s (query_speed; the measure itself, not the time
  /// per sample that ConfigPoint keeps), and energy_j the energy per query or per sample
  /// (query_energy).
  std::optional<LatencyPercentile> query_latency;
  QuerySpeed query_speed = QuerySpeed::kLatency;
  QueryEnergy query_energy = QueryEnergy::kPerQuery;
  std::string group;  ///< "device=a rep=1" for epochs, "device=a" for repetitions, "" for devices
  Summary time_s;
  std::optional<Summary> energy_j;
  std::optional<ConfidenceInterval> time_median_ci;  ///< bootstrap CI of the median, n >= 2
};

/// What an inference run is summarised by: `latency`, or its throughput when `speed` says so, and
/// its energy per query or per sample.
struct QueryMeasures {
  LatencyPercentile latency = LatencyPercentile::kP99;
  QuerySpeed speed = QuerySpeed::kLatency;
  QueryEnergy energy = QueryEnergy::kPerQuery;
};

/// One row per group that has at least one sample, sorted by key and group. OK records only: a
/// training run's epochs, an inference run's measures (its queries are one sample, so an inference
/// run has no epoch level of its own: its row there is the run).
std::vector<VariabilityRow> variability(const std::vector<RunRecord>& records, VariabilityLevel level,
                                        const BootstrapOptions& bootstrap = {}, const QueryMeasures& queries = {});
/// The same with inference runs summarised by `latency` and energy per query.
std::vector<VariabilityRow> variability(const std::vector<RunRecord>& records, VariabilityLevel level,
                                        const BootstrapOptions& bootstrap, LatencyPercentile latency);

}  // namespace jetchar::analysis
