// Merging results stores: a fleet's per-node stores (or any stores of one sweep) into one, so
// that `analyze` and `report` see the whole fleet. A run is identified by (sweep, run_id, board:
// context.device_id), the results store's key: the same run id measured on two boards is kept as
// two devices' runs. The merge is idempotent: a record already in the output, or met twice among
// the inputs (a store copied after a requeue), is kept once when its content is the same; the
// same run on the same board with different content is a conflict, an error that names both
// sources, and nothing of the offending input is written.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace jetchar::experiments {

struct MergeSummary {
  std::size_t inputs = 0;
  std::size_t runs_read = 0;   ///< records met in the inputs
  std::size_t runs_added = 0;  ///< new in the output
  std::size_t duplicates = 0;  ///< the same record met again (kept once)
  std::size_t runs_total = 0;  ///< records in the output afterwards
};

/// Merges the stores `inputs` (results directories or .db files, opened read-only) into the
/// results directory `output` (created; its results.db is created or extended). Each input is
/// written in one transaction. Throws std::invalid_argument naming the input for a missing or
/// foreign store, and for a conflict naming the run, both sources and what differs; inputs
/// before the conflicting one stay merged.
MergeSummary merge_results(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs);

}  // namespace jetchar::experiments
