// Data-parallel scaling (`jetchar analyze scaling`): one training configuration at several world
// sizes (ranks = workload.distributed's nproc_per_node x nnodes; a run without them has one),
// with its throughput, scaling efficiency and energy per sample at each. Weak scaling keeps the
// per-rank batch and lets the global batch grow with the ranks; strong scaling keeps the global
// batch (batch x ranks) and shares it among more ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_record.h"

namespace jetchar::analysis {

enum class ScalingKind { kWeak, kStrong };
std::string_view to_string(ScalingKind kind);  ///< "weak", "strong"

struct ScalingPoint {
  std::int64_t world_size = 1;
  std::size_t epochs = 0;    ///< epoch records in the medians
  double samples_per_s = 0;  ///< median over the epochs of samples / epoch time
  /// samples/s per rank against the curve's smallest world's: 1 is perfect scaling.
  double efficiency = 1;
  std::optional<double> energy_per_sample_j;  ///< median over the epochs of energy / samples
  std::optional<double> epoch_time_s;         ///< median
  /// Median share of the epoch the recording rank waited on all-reduces after its backward
  /// (a store's rank_epochs; an export's exposed_communication_s column); unset for one rank.
  std::optional<double> exposed_share;
};

struct ScalingCurve {
  ScalingKind kind = ScalingKind::kWeak;
  /// The configuration: workload, power mode and settings, its batch axis the per-rank batch
  /// ("batch", weak) or the global one ("global_batch", strong); no world-size, backend or thread
  /// axes (each world size divides the machine's threads among its ranks).
  ConfigKey key;
  std::vector<ScalingPoint> points;  ///< by world size, two or more
};

/// The axes that describe how a configuration is spread over ranks rather than what it trains.
bool is_world_axis(const std::string& axis);
/// A record's ranks: nproc_per_node x nnodes (each 1 when absent).
std::int64_t world_size_of(const RunRecord& record);

/// Every training configuration measured at two or more world sizes, weak curves first, then
/// strong ones. Only OK records with an epoch time and samples count; epoch 0 is left out where a
/// configuration and world size have later epochs.
std::vector<ScalingCurve> scaling_curves(const std::vector<RunRecord>& records);

}  // namespace jetchar::analysis
