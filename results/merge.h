// Merging results stores: a fleet's per-node stores (or any stores of one sweep) into one, so
// that `analyze` and `report` see the whole fleet. A run is identified by (sweep, run_id, board:
// context.device_id), the results store's key: the same run id measured on two boards is kept as
// two devices' runs. The merge is idempotent: a record already in the output, or met twice among
// the inputs (a store copied after a requeue), is kept once when its content is the same; the
// same run on the same board with different content is a conflict, an error that names both
// sources. An adaptive_profile sweep's mode predictions and choice come along, kept once per sweep
// in the same way: the same sweep's predictions differing between two sources are a conflict. A
// merge is all or nothing: every input is read and checked before the output is
// touched, and everything new is written in one transaction, so a refused or interrupted merge
// leaves the output as it was (a new output folder is not created).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace jetchar::results {

struct MergeSummary {
  std::size_t inputs = 0;
  std::size_t runs_read = 0;   ///< records met in the inputs
  std::size_t runs_added = 0;  ///< new in the output
  std::size_t duplicates = 0;  ///< the same record met again (kept once)
  std::size_t runs_total = 0;  ///< records in the output afterwards
  /// Sweeps whose mode predictions (and choice) the output did not hold and now does: an
  /// adaptive_profile sweep's, results/mode_predictions_store.h.
  std::size_t predictions_added = 0;
};

/// A stage of a merge as it begins or ends, for a line on a long merge's stderr.
struct MergeProgress {
  enum class Stage {
    kOutputRead,  ///< the output store read (every run it already holds): `runs` of them
    kInputRead,   ///< an input store read and checked: `runs` records met in it
    kWriting,     ///< about to write `runs` new records (and their power samples) into the output
  };
  Stage stage = Stage::kInputRead;
  std::filesystem::path store;  ///< the store read or written
  std::size_t runs = 0;
};

struct MergeOptions {
  /// Checked between inputs and before the write: true ends the merge with nothing written
  /// (MergeStopped). A signal during the write, which is one transaction, lets it finish.
  std::function<bool()> stop_requested = {};
  /// Wait for another writer of the output folder instead of refusing (sysfs/writer_lock.h).
  bool wait_for_writer = false;
  /// Told each stage (MergeProgress); a library never prints, the command does.
  std::function<void(const MergeProgress&)> progress = {};
};

/// A merge stopped before its write: nothing was merged.
class MergeStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Merges the stores `inputs` (results directories or .db files, opened read-only) into the
/// results directory `output` (created when absent; its results.db is created or extended),
/// holding the output's writer lock. Throws std::invalid_argument naming the input for a missing
/// or foreign store, for an input that is the output, and for a conflict naming the run (or the
/// sweep whose predictions differ), both sources and what differs; sysfs::LockHeld when another
/// process writes the output. Nothing is written then.
MergeSummary merge_results(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
                           const MergeOptions& options = {});

}  // namespace jetchar::results
