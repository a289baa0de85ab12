// Reads a sweep's results straight from its SQLite store (the results.db that `jetchar sweep run`
// writes, results/store.cpp) without linking experiments/ or Protobuf: only the flat
// columns of the tables runs, epochs, minibatches and power_samples are read, never the result blob.
// Rows become RunRecords through the same column mapping as the CSV/JSONL export
// (record_fields.cpp), so a store and its export give the same configurations — except
// `precision`, `latency_*` and `baseload_power_w`, which the store keeps only in the blob.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/mode_predictions.h"
#include "analysis/phase_steps.h"
#include "analysis/power_trace.h"
#include "analysis/run_record.h"

namespace SQLite {
class Database;
}

namespace jetchar::analysis {

/// True when `path` is a directory holding results.db, or a file that starts with the SQLite
/// header (whatever its name).
bool is_results_store(const std::filesystem::path& path);

/// Power over time from one run of the store, for the report.
struct StoredPowerTrace {
  std::string run;     ///< "sweep/run_id"
  std::string config;  ///< the run's configuration label
  std::string source;  ///< what the samples are: stored samples, minibatch energy, epoch averages
  std::vector<TraceSample> samples;
};

class ResultsStoreReader {
 public:
  /// The schema versions of results/store.cpp this reader understands: version 2 only
  /// added columns and a table (epoch_meters) that are not read here, version 3 the epochs'
  /// start times (read when present), version 4 the physical board of each run (runs.device_id:
  /// the record's device when set, else the board model; see records()), version 5 the board in
  /// every table's key (one run id of two boards is two runs; rows are joined on it), version 6
  /// the task metrics (epochs.eval_*, runs' time and energy to target: record metrics by the
  /// export's names, absent in older stores), version 7 every setting that tells runs apart
  /// (table run_settings: each an axis of the record, by the export's column names; an older
  /// store's records have the flat runs columns only, until a writer migrates it), version 8 each
  /// rank of a data-parallel run (table rank_epochs), version 9 each epoch's pretraining phase
  /// (epochs.phase: record metric "phase" when above 0) and each phase's figures (table run_phases,
  /// not read here), version 10 each phase's loss per optimizer step (table phase_steps, read by
  /// phase_steps()).
  static constexpr int kOldestSchemaVersion = 1;
  static constexpr int kNewestSchemaVersion = 10;

  /// `path`: a results directory (with results.db) or the store file. Opens read-only and checks
  /// the schema version and the tables and columns read here; throws InputError naming the file
  /// and what is wrong (not SQLite, not a jetchar store, another schema version, a missing table).
  explicit ResultsStoreReader(const std::filesystem::path& path);
  ~ResultsStoreReader();
  ResultsStoreReader(const ResultsStoreReader&) = delete;
  ResultsStoreReader& operator=(const ResultsStoreReader&) = delete;

  const std::filesystem::path& file() const { return file_; }
  int schema_version() const { return schema_version_; }

  /// One record per epoch of every run of every sweep, one per run without epochs (inference,
  /// failed runs); ordered by sweep, run_id, epoch. Throws InputError naming the run on a value
  /// the analysis cannot use (an unknown status, a negative time). The device is the physical
  /// board (runs.device_id) where the store records it, else the board model. A store holding
  /// runs of more than one board model (a merged fleet of several kinds) gives every record the
  /// axis "board" = its model: a power mode of one kind is another configuration than the same
  /// numbers on another kind, so fronts and variability stay within a kind.
  std::vector<RunRecord> records() const;

  /// Power over time of one OK run, from the richest data stored: the run's power samples (one
  /// warm epoch, with fetch/compute markers from its minibatch records), else minibatch energies
  /// (one warm epoch), else the per-epoch average power over the whole run (epoch markers).
  /// nullopt when no run has any power figure.
  std::optional<StoredPowerTrace> power_trace() const;

  /// The predictions adaptive-profiling sweeps stored beside their runs (table mode_predictions,
  /// analysis/mode_predictions.h), by sweep, then by cores and CPU, GPU and EMC clocks; empty when
  /// the store has none (the table comes with the first sweep that stores predictions). Throws
  /// InputError naming the sweep, the mode, the column and the value when a row is not a
  /// prediction: a value that is not a positive number, an interval that does not hold its value,
  /// a level outside (0, 1).
  std::vector<StoredModePrediction> mode_predictions() const;

  /// The choices adaptive-profiling sweeps with an objective stored (table mode_choices), by sweep;
  /// empty when the store has none. Throws InputError naming the sweep, the column and the value
  /// for a row that is not a choice (a confidence outside (0.5, 1), more eligible modes than modes,
  /// a negative regret, a probability outside [0, 1], a flag not 0 or 1).
  std::vector<StoredModeChoice> mode_choices() const;

  /// Each phase's loss per optimizer step of every phased pretraining run (table phase_steps,
  /// schema 10), by sweep, run, board and phase; empty in an older store or one without phased
  /// runs. The device is the one records() gives the run's epochs. Throws InputError naming the run,
  /// the phase and the value for a row that is not a step (a step below 1 or repeated).
  std::vector<PhaseStepLosses> phase_steps() const;

 private:
  std::filesystem::path file_;
  std::unique_ptr<SQLite::Database> db_;
  int schema_version_ = 0;
  bool has_minibatches_ = false;
  bool has_power_samples_ = false;
  bool has_epoch_start_ = false;
  bool has_device_id_ = false;
  bool keyed_by_device_ = false;  ///< schema 5: a run is (sweep, run_id, device_id)
  bool has_run_settings_ = false;  ///< schema 7: table run_settings
};

}  // namespace jetchar::analysis
