// The table `sweep run` and `sweep resume` end with: one line per stored run with what its task
// measured. Training runs show the figures `results list`, `analyze` and the report use (warm-epoch
// medians, results/epoch_medians.h); inference runs their latency percentiles, throughput and
// energy per query (RunResult.latency).
#pragma once

#include <vector>

#include "proto/run_result.pb.h"

namespace jetchar::cli {

/// To stdout: a table of the training runs and one of the inference runs, each only when the
/// sweep has such runs, in the order given.
void print_sweep_summary(const std::vector<proto::RunResult>& results);

}  // namespace jetchar::cli
