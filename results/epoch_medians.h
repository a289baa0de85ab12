// The figures a run is summarised by, with the same definition as the analysis
// (analysis/config_point.h): medians over the run's warm epochs — every epoch after epoch 0, which
// runs on a cold page cache and pays one-off costs, as the seed study reports them — or over
// epoch 0 alone when the run has no other. `jetchar results list` and the sweep summary print
// these, so that their epoch time is the one `analyze` and the report use.
#pragma once

#include <optional>
#include <vector>

#include "proto/run_result.pb.h"

namespace jetchar::results {

struct EpochMedians {
  std::optional<double> e2e_s;
  std::optional<double> stall_s;
  std::optional<double> compute_s;
  /// energy_j, else average power × e2e time (as analysis/config_point.h's record_energy_j).
  std::optional<double> energy_j;
  std::size_t epochs = 0;  ///< epochs the medians are over
  bool cold_only = false;  ///< the run has epoch 0 only: the figures are of the cold epoch
};

EpochMedians warm_epoch_medians(const proto::RunResult& result);

/// The median of `values`: the middle value, or the mean of the two middle ones for an even count
/// (as analysis/statistics.h's median); nullopt when there are none. The training runner's
/// later-epoch medians use it too.
std::optional<double> median(std::vector<double> values);

/// The header note every output that prints these gives: "medians over warm epochs (...)".
inline constexpr const char* kWarmEpochsNote =
    "medians over warm epochs (every epoch after epoch 0; * = the run has epoch 0 only)";

}  // namespace jetchar::results
