// The results store: one SQLite file per results directory (WAL mode), one transaction per run,
// so a run is either stored whole or not at all, whatever kills the process. The full RunResult
// is kept as a Protobuf blob next to flat columns that SQL, pandas and spreadsheets can use.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/run_result.pb.h"
#include "results/mode_predictions_store.h"
#include "results/schema/store_schema.h"

namespace SQLite {
class Database;
}

namespace jetchar::results {

/// One channel of one power sample (onboard or external meter), stored with a run when its spec
/// asks (can be large).
struct StoredPowerSample {
  double t_s = 0;       ///< seconds since the run started (< 0: the sample just before it)
  std::string channel;  ///< the onboard rail, or the meter as "protocol:device"
  double power_w = 0;
};

struct StoredRunSummary {
  std::string sweep;
  std::string run_id;
  std::string device_id;  ///< the board it ran on (context.device_id), '' when none was recorded
  std::string status;
  std::string model;
  std::string power_mode;
  std::uint32_t batch_size = 0;
  std::uint32_t workers = 0;
  /// Medians over the run's warm epochs (results/epoch_medians.h), as the analysis takes them.
  std::optional<double> median_epoch_s;
  std::optional<double> median_energy_j;
  bool cold_only = false;  ///< the run has epoch 0 only: the medians are of the cold epoch
};

class ResultsStore {
 public:
  enum class Access {
    kReadWrite,  ///< a sweep's store: created when absent, schema created or migrated
    /// Commands that only read: the file is never created, migrated or written, and no -wal,
    /// -shm or -journal file is left beside it (SQLite's immutable mode when no writer has the
    /// store open; plain read-only beside a live sweep's WAL). save() throws std::logic_error.
    kReadOnly,
  };

  /// Opens `file`; read-write creates it when absent and creates or migrates the schema. Throws
  /// std::runtime_error naming the file when it is not a jetchar results store (read-only: an
  /// absent, empty or non-SQLite file, or another schema, is std::invalid_argument: bad input).
  explicit ResultsStore(const std::filesystem::path& file, Access access = Access::kReadWrite);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  /// Stores one run atomically, replacing an earlier record of the same (sweep, run_id, board:
  /// context.device_id); the same run of another board is another record. Throws
  /// std::runtime_error naming the file and the run when it cannot (a full disk): nothing of the
  /// run is stored then and earlier runs are untouched.
  void save(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples = {});
  /// Stores several runs in one transaction (all or none), each replacing an earlier record of
  /// its (sweep, run_id, board): what `results merge` writes. `samples` is empty or has one entry
  /// per result; `predictions` replaces those sweeps' mode predictions and choices in the same
  /// transaction (results/mode_predictions_store.h).
  void save_batch(const std::vector<proto::RunResult>& results,
                  const std::vector<std::vector<StoredPowerSample>>& samples = {},
                  const std::map<std::string, SweepPredictions>& predictions = {});
  // A run is (sweep, run_id, device_id). Where `device_id` is not given, contains() asks about any
  // board, and load() and power_samples() take the one board that stored the run; when several
  // did, they throw std::invalid_argument naming the file, the run and the boards.
  bool contains(const std::string& sweep, const std::string& run_id,
                const std::optional<std::string>& device_id = std::nullopt) const;
  std::optional<proto::RunResult> load(const std::string& sweep, const std::string& run_id,
                                       const std::optional<std::string>& device_id = std::nullopt) const;
  /// The boards (device_id) that stored a run, in order; empty when none did.
  std::vector<std::string> devices_of(const std::string& sweep, const std::string& run_id) const;
  /// Every run of a sweep (all sweeps when empty), in (sweep, run_id, device_id) order.
  std::vector<proto::RunResult> load_all(const std::string& sweep = {}) const;
  std::vector<StoredRunSummary> list(const std::string& sweep = {}) const;
  std::vector<StoredPowerSample> power_samples(const std::string& sweep, const std::string& run_id,
                                               const std::optional<std::string>& device_id = std::nullopt) const;
  std::vector<std::string> sweeps() const;

  const std::filesystem::path& file() const { return file_; }

  /// The SQLite schema's version (results/schema/store_schema.h documents the
  /// tables); older stores are migrated when opened.
  static constexpr int kSchemaVersion = schema::kResultsStoreSchemaVersion;

 private:
  /// `device_id`, or the one board that stored the run (nullopt: none did; several: throws).
  std::optional<std::string> device_of(const std::string& sweep, const std::string& run_id,
                                       const std::optional<std::string>& device_id) const;
  void save_run(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples);
  /// The rows of one run, inside the caller's transaction.
  void write_run(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples);

  /// The SQL for a run's board in table runs, for the store's schema version.
  std::string runs_device() const;

  std::filesystem::path file_;
  bool read_only_ = false;
  int version_ = kSchemaVersion;  ///< a read-only store's own version (it is never migrated)
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace jetchar::results
