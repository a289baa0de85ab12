// One point per configuration (workload × power mode × other axes): the medians over its epochs,
// repetitions and devices, which is what Pareto fronts, choices and predictors work on.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

struct ConfigPoint {
  ConfigKey key;
  double time_s = 0;               ///< median epoch time
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
};

/// Groups OK records that have an epoch time by ConfigKey and takes medians. Records that are
/// not OK or lack a time are left out. Sorted by key.
std::vector<ConfigPoint> aggregate(const std::vector<RunRecord>& records, const AggregateOptions& options = {});

/// Energy of one record: measured, else average power × time; nullopt when neither is known.
std::optional<double> record_energy_j(const RunRecord& record);

}  // namespace jetchar::analysis
