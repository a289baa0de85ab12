#include "results/store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "results/epoch_medians.h"
#include "results/schema/setting_columns.h"
#include "results/schema/store_connection.h"
#include "results/schema/store_schema.h"
#include "results/setting_values.h"
#include "sysfs/unique_fd.h"

namespace jetchar::results {
namespace {

constexpr const char* kSchema = schema::kResultsStoreSchema;
constexpr const auto& kTables = schema::kResultsStoreTables;

// Version 4 -> 5: SQLite cannot change a table's primary key, so each table is rebuilt (renamed,
// created anew from kSchema, copied, dropped) inside the caller's transaction. A child row takes
// its run's device_id; a run without one gets '' (it recorded no board).
void migrate_to_device_key(SQLite::Database& db) {
  db.exec("DROP INDEX IF EXISTS power_samples_run");
  std::vector<std::string> present;
  for (const char* table : kTables) {
    if (!db.tableExists(table)) continue;  // epoch_meters is absent in a store migrated from version 1
    db.exec(fmt::format("ALTER TABLE {0} RENAME TO {0}_v4", table));
    present.emplace_back(table);
  }
  db.exec(kSchema);
  for (const auto& table : present) {
    std::string columns, selected;
    SQLite::Statement info(db, fmt::format("PRAGMA table_info({}_v4)", table));
    while (info.executeStep()) {
      const std::string column = info.getColumn(1).getString();
      if (column == "device_id") continue;
      columns += column + ", ";
      selected += "o." + column + ", ";
    }
    if (table == "runs") {
      db.exec(fmt::format("INSERT INTO runs ({}device_id) SELECT {}COALESCE(o.device_id, '') FROM runs_v4 o", columns,
                          selected));
    } else {
      db.exec(
          fmt::format("INSERT INTO {0} ({1}device_id) SELECT {2}COALESCE(r.device_id, '') FROM {0}_v4 o "
                      "LEFT JOIN runs_v4 r ON r.sweep = o.sweep AND r.run_id = o.run_id",
                      table, columns, selected));
    }
  }
  for (auto table = present.rbegin(); table != present.rend(); ++table)
    db.exec(fmt::format("DROP TABLE {}_v4", *table));
}

// Version 5 -> 6: the task-metric columns, appended. A store migrated from version 4 in the same
// opening already has them (its tables were created anew from kSchema), so each is added only
// when missing.
template <typename Columns>
void add_missing_columns(SQLite::Database& db, const char* table, const Columns& columns) {
  std::vector<std::string> present;
  SQLite::Statement info(db, fmt::format("PRAGMA table_info({})", table));
  while (info.executeStep()) present.push_back(info.getColumn(1).getString());
  for (const auto& [name, type] : columns) {
    if (std::find(present.begin(), present.end(), name) == present.end())
      db.exec(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", table, name, type));
  }
}

void add_metric_columns(SQLite::Database& db) {
  add_missing_columns(db, "runs", schema::kResultsStoreV6RunColumns);
  add_missing_columns(db, "epochs", schema::kResultsStoreV6EpochColumns);
}

// Binds an optional value, NULL when absent (never 0 for a missing measurement).
template <typename T>
void bind_optional(SQLite::Statement& statement, int index, bool present, T value) {
  if (present) {
    statement.bind(index, value);
  } else {
    statement.bind(index);
  }
}

proto::RunResult parse_blob(const SQLite::Column& column, const std::string& where) {
  proto::RunResult result;
  if (!result.ParseFromArray(column.getBlob(), column.getBytes())) {
    throw std::runtime_error(fmt::format("results store: the record of {} is corrupt", where));
  }
  return result;
}

// One function per table that write_run fills: every row of a run is keyed by (sweep, run_id,
// the run's board), and a run stored again replaces all of them.
void erase_run_rows(SQLite::Database& db, const proto::RunResult& result) {
  for (const char* table : kTables) {
    SQLite::Statement erase(db, fmt::format("DELETE FROM {} WHERE sweep = ? AND run_id = ? AND device_id = ?", table));
    erase.bind(1, result.sweep());
    erase.bind(2, result.run_id());
    erase.bind(3, result.context().device_id());
    erase.exec();
  }
}

// The version 7 runs columns (schema::kResultsStoreV7RunColumns) from `first` on: an inference
// run's query latencies, throughput and energy per query, NULL without timed queries.
void bind_query_columns(SQLite::Statement& statement, int first, const proto::RunResult& result) {
  const auto& l = result.latency();
  const bool timed = result.has_latency() && l.batches() > 0;
  int i = first;
  for (const double value :
       {l.avg_ms(), l.p50_ms(), l.p90_ms(), l.p95_ms(), l.p99_ms(), l.max_ms(), l.throughput_samples_per_s()}) {
    bind_optional(statement, i++, timed, value);
  }
  bind_optional(statement, i++, l.has_energy_per_query_j(), l.energy_per_query_j());
  bind_optional(statement, i, l.has_energy_per_sample_j(), l.energy_per_sample_j());
}

void insert_run_row(SQLite::Database& db, const proto::RunResult& result) {
  std::string blob;
  result.SerializeToString(&blob);
  const auto& requested = result.resolved().has_workload() ? result.resolved() : result.requested();
  const auto& device = requested.device();
  SQLite::Statement run(
      db,
      "INSERT INTO runs VALUES (?,?,?,?,?, ?,?,?,?,?,?, ?,?,?,?,?,?, ?,?,?,?,?, ?,?, ?, ?,?,?, ?,?,?,?,?, "
      "?,?,?,?,?,?,?,?,?)");
  int i = 0;
  run.bind(++i, result.sweep());
  run.bind(++i, result.run_id());
  run.bind(++i, static_cast<int64_t>(result.repetition()));
  run.bind(++i, proto::RunStatus_Name(result.status()));
  run.bind(++i, result.reason());
  run.bind(++i, requested.workload().model());
  run.bind(++i, requested.workload().dataset());
  run.bind(++i, proto::Task_Name(requested.workload().task()));
  run.bind(++i, static_cast<int64_t>(requested.workload().batch_size()));
  run.bind(++i, static_cast<int64_t>(std::max<std::uint32_t>(1, requested.workload().accumulate())));
  run.bind(++i, static_cast<int64_t>(requested.loader().workers()));
  run.bind(++i, proto::CachePolicy_Name(requested.cache()));
  run.bind(++i, result.context().power_mode());
  bind_optional(run, ++i, device.has_cpu_cores(), static_cast<int64_t>(device.cpu_cores()));
  bind_optional(run, ++i, device.has_cpu_freq_mhz(), device.cpu_freq_mhz());
  bind_optional(run, ++i, device.has_gpu_freq_mhz(), device.gpu_freq_mhz());
  bind_optional(run, ++i, device.has_emc_freq_mhz(), device.emc_freq_mhz());
  run.bind(++i, result.context().board_kind());
  run.bind(++i, result.context().board_model());
  run.bind(++i, result.context().simulated() ? 1 : 0);
  run.bind(++i, result.context().dataset_medium());
  run.bind(++i, result.context().energy_source());
  run.bind(++i, result.context().started_utc());
  run.bind(++i, result.duration_s());
  run.bind(++i, blob.data(), static_cast<int>(blob.size()));
  bind_optional(run, ++i, result.adaptive_minibatches() > 0, static_cast<int64_t>(result.adaptive_minibatches()));
  run.bind(++i, result.context().gpio_marker());
  run.bind(++i, result.context().device_id());
  const bool target = result.has_target();
  const auto& t = result.target();
  bind_optional(run, ++i, target, t.target_f1());
  bind_optional(run, ++i, target && t.has_epoch(), static_cast<int64_t>(t.epoch()));
  bind_optional(run, ++i, target && t.has_time_s(), t.time_s());
  bind_optional(run, ++i, target && t.has_energy_j(), t.energy_j());
  bind_optional(run, ++i, target && t.has_wall_s(), t.wall_s());
  bind_query_columns(run, i + 1, result);
  run.exec();
}

void insert_epoch_rows(SQLite::Database& db, const proto::RunResult& result) {
  SQLite::Statement epoch(db,
                          "INSERT INTO epochs VALUES (?,?,?, ?,?,?,?,?, ?,?,?,?,?, ?,?,?,?,?, ?,?, ?,?,?,?,?,?,?, ?)");
  for (const auto& e : result.epochs()) {
    epoch.reset();
    epoch.clearBindings();
    int k = 0;
    epoch.bind(++k, result.sweep());
    epoch.bind(++k, result.run_id());
    epoch.bind(++k, static_cast<int64_t>(e.epoch()));
    epoch.bind(++k, e.stall_s());
    epoch.bind(++k, e.compute_s());
    epoch.bind(++k, e.e2e_s());
    epoch.bind(++k, static_cast<int64_t>(e.samples()));
    epoch.bind(++k, static_cast<int64_t>(e.minibatches()));
    bind_optional(epoch, ++k, e.has_loss(), e.loss());
    bind_optional(epoch, ++k, e.has_accuracy(), e.accuracy());
    bind_optional(epoch, ++k, e.has_energy_j(), e.energy_j());
    bind_optional(epoch, ++k, e.has_incremental_energy_j(), e.incremental_energy_j());
    bind_optional(epoch, ++k, e.has_energy_per_sample_j(), e.energy_per_sample_j());
    bind_optional(epoch, ++k, e.has_average_power_w(), e.average_power_w());
    bind_optional(epoch, ++k, e.has_residency_before(), e.residency_before());
    bind_optional(epoch, ++k, e.has_residency_after(), e.residency_after());
    bind_optional(epoch, ++k, e.has_read_bytes(), static_cast<int64_t>(e.read_bytes()));
    bind_optional(epoch, ++k, e.has_read_ios(), static_cast<int64_t>(e.read_ios()));
    bind_optional(epoch, ++k, e.has_start_s(), e.start_s());
    epoch.bind(++k, result.context().device_id());
    bind_optional(epoch, ++k, e.has_eval_loss(), e.eval_loss());
    bind_optional(epoch, ++k, e.has_eval_accuracy(), e.eval_accuracy());
    bind_optional(epoch, ++k, e.has_eval_entity_precision(), e.eval_entity_precision());
    bind_optional(epoch, ++k, e.has_eval_entity_recall(), e.eval_entity_recall());
    bind_optional(epoch, ++k, e.has_eval_entity_f1(), e.eval_entity_f1());
    bind_optional(epoch, ++k, e.has_eval_exact_match(), e.eval_exact_match());
    bind_optional(epoch, ++k, e.has_eval_squad_f1(), e.eval_squad_f1());
    epoch.bind(++k, static_cast<int64_t>(e.phase()));
    epoch.exec();
  }
}

void insert_meter_rows(SQLite::Database& db, const proto::RunResult& result) {
  SQLite::Statement meter(db, "INSERT INTO epoch_meters VALUES (?,?,?,?,?,?,?,?,?)");
  for (const auto& e : result.epochs()) {
    for (const auto& m : e.meters()) {
      meter.reset();
      meter.clearBindings();
      meter.bind(1, result.sweep());
      meter.bind(2, result.run_id());
      meter.bind(3, static_cast<int64_t>(e.epoch()));
      meter.bind(4, m.meter());
      bind_optional(meter, 5, m.has_energy_j(), m.energy_j());
      bind_optional(meter, 6, m.has_average_power_w(), m.average_power_w());
      meter.bind(7, static_cast<int64_t>(m.readings()));
      meter.bind(8, m.gap_s());
      meter.bind(9, result.context().device_id());
      meter.exec();
    }
  }
}

void insert_minibatch_rows(SQLite::Database& db, const proto::RunResult& result) {
  SQLite::Statement minibatch(db, "INSERT INTO minibatches VALUES (?,?,?,?,?,?,?,?,?)");
  for (const auto& m : result.minibatches()) {
    minibatch.reset();
    minibatch.clearBindings();
    minibatch.bind(1, result.sweep());
    minibatch.bind(2, result.run_id());
    minibatch.bind(3, static_cast<int64_t>(m.epoch()));
    minibatch.bind(4, static_cast<int64_t>(m.index()));
    minibatch.bind(5, m.stall_s());
    minibatch.bind(6, m.compute_s());
    bind_optional(minibatch, 7, m.has_energy_j(), m.energy_j());
    bind_optional(minibatch, 8, m.has_loss(), m.loss());
    minibatch.bind(9, result.context().device_id());
    minibatch.exec();
  }
}

void insert_rank_rows(SQLite::Database& db, const proto::RunResult& result) {
  SQLite::Statement rank(db, "INSERT INTO rank_epochs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& r : result.distributed().ranks()) {
    rank.reset();
    rank.bind(1, result.sweep());
    rank.bind(2, result.run_id());
    rank.bind(3, result.context().device_id());
    rank.bind(4, static_cast<int64_t>(r.epoch()));
    rank.bind(5, static_cast<int64_t>(r.rank()));
    rank.bind(6, static_cast<int64_t>(r.samples()));
    rank.bind(7, r.stall_s());
    rank.bind(8, r.compute_s());
    rank.bind(9, r.e2e_s());
    rank.bind(10, r.allreduce_s());
    rank.bind(11, r.exposed_communication_s());
    rank.bind(12, static_cast<int64_t>(r.allreduce_bytes()));
    rank.exec();
  }
}

void insert_phase_rows(SQLite::Database& db, const proto::RunResult& result) {
  SQLite::Statement phase(db, "INSERT INTO run_phases VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const auto& p : result.phases()) {
    phase.reset();
    phase.clearBindings();
    int k = 0;
    phase.bind(++k, result.sweep());
    phase.bind(++k, result.run_id());
    phase.bind(++k, result.context().device_id());
    phase.bind(++k, static_cast<int64_t>(p.phase()));
    phase.bind(++k, static_cast<int64_t>(p.sequence_length()));
    phase.bind(++k, static_cast<int64_t>(p.batch_size()));
    phase.bind(++k, static_cast<int64_t>(p.accumulate()));
    phase.bind(++k, p.learning_rate());
    phase.bind(++k, static_cast<int64_t>(p.steps()));
    phase.bind(++k, static_cast<int64_t>(p.samples()));
    phase.bind(++k, p.time_s());
    phase.bind(++k, p.sequences_per_s());
    bind_optional(phase, ++k, p.has_final_loss(), p.final_loss());
    bind_optional(phase, ++k, p.has_energy_j(), p.energy_j());
    phase.exec();
  }
  SQLite::Statement step(db, "INSERT INTO phase_steps VALUES (?,?,?,?,?,?)");
  for (const auto& p : result.phases()) {
    for (int i = 0; i < p.step_loss_size(); ++i) {
      step.reset();
      step.clearBindings();
      step.bind(1, result.sweep());
      step.bind(2, result.run_id());
      step.bind(3, result.context().device_id());
      step.bind(4, static_cast<int64_t>(p.phase()));
      step.bind(5, i + 1);
      bind_optional(step, 6, std::isfinite(p.step_loss(i)), p.step_loss(i));
      step.exec();
    }
  }
}

void insert_power_samples(SQLite::Database& db, const proto::RunResult& result,
                          const std::vector<StoredPowerSample>& samples) {
  SQLite::Statement sample(db, "INSERT INTO power_samples VALUES (?,?,?,?,?,?)");
  for (const auto& s : samples) {
    sample.reset();
    sample.bind(1, result.sweep());
    sample.bind(2, result.run_id());
    sample.bind(3, s.t_s);
    sample.bind(4, s.channel);
    sample.bind(5, s.power_w);
    sample.bind(6, result.context().device_id());
    sample.exec();
  }
}

// The run's settings that have a value (results/setting_values.h).
void insert_setting_rows(SQLite::Database& db, const proto::RunResult& result, const std::string& device_id) {
  SQLite::Statement setting(db, "INSERT INTO run_settings VALUES (?,?,?,?,?,?)");
  const auto values = setting_values(result);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].second.empty()) continue;
    setting.reset();
    setting.bind(1, result.sweep());
    setting.bind(2, result.run_id());
    setting.bind(3, device_id);
    setting.bind(4, std::string(values[i].first));
    setting.bind(5, std::string(schema::kSettingColumns[i].field));
    setting.bind(6, values[i].second);
    setting.exec();
  }
}

// Version 6 -> 7: the query columns of runs and table run_settings (created from kSchema), filled
// from each run's record and keyed as the run's row is (a migrated version 4 row's board came from
// its column, not its record).
void add_settings_and_query_columns(SQLite::Database& db) {
  add_missing_columns(db, "runs", schema::kResultsStoreV7RunColumns);
  db.exec(kSchema);
  std::string assignments;
  for (const auto& [name, type] : schema::kResultsStoreV7RunColumns)
    assignments += fmt::format("{}{} = ?", assignments.empty() ? "" : ", ", name);
  SQLite::Statement update(
      db, fmt::format("UPDATE runs SET {} WHERE sweep = ? AND run_id = ? AND device_id = ?", assignments));
  SQLite::Statement runs(db, "SELECT sweep, run_id, device_id, result FROM runs");
  while (runs.executeStep()) {
    const std::string sweep = runs.getColumn(0).getString(), run_id = runs.getColumn(1).getString();
    const std::string device_id = runs.getColumn(2).getString();
    const proto::RunResult result = parse_blob(runs.getColumn(3), sweep + "/" + run_id);
    insert_setting_rows(db, result, device_id);
    update.reset();
    bind_query_columns(update, 1, result);
    const int key = static_cast<int>(schema::kResultsStoreV7RunColumns.size());
    update.bind(key + 1, sweep);
    update.bind(key + 2, run_id);
    update.bind(key + 3, device_id);
    update.exec();
  }
}

// Opens a store for reading without leaving a trace (schema::open_without_trace), after checking
// that it is an SQLite database, so that a wrong path gets an error naming what it is.
std::unique_ptr<SQLite::Database> open_read_only(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw std::invalid_argument(fmt::format("results store {} does not exist", name));
  }
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw std::invalid_argument(fmt::format("results store {} is not a file", name));
  }
  const sysfs::UniqueFd fd(::open(name.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw std::system_error(errno, std::generic_category(), fmt::format("results store {}", name));
  std::array<char, 16> header{};
  const ssize_t got = ::read(fd.get(), header.data(), header.size());
  if (got < 0) throw std::system_error(errno, std::generic_category(), fmt::format("results store {}", name));
  if (got == 0) {
    throw std::invalid_argument(
        fmt::format("results store {} is empty (0 bytes): not a results store (`jetchar sweep run` writes one)", name));
  }
  if (got < 16 || std::string_view(header.data(), header.size()) != std::string_view("SQLite format 3\0", 16)) {
    throw std::invalid_argument(fmt::format("results store {} is not an SQLite database", name));
  }
  return schema::open_without_trace(file);
}

// Whether the database `db` is a jetchar store (its meta table holds a schema version) or empty
// (a new store). Anything else belongs to another program and is never written: std::invalid_argument
// naming the tables it has.
void check_store_or_empty(SQLite::Database& db, const std::filesystem::path& file) {
  std::vector<std::string> tables;
  SQLite::Statement list(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (list.executeStep()) tables.push_back(list.getColumn(0).getString());
  if (tables.empty()) return;
  std::string why;
  if (std::find(tables.begin(), tables.end(), "meta") == tables.end()) {
    why = "it has no table 'meta'";
  } else {
    SQLite::Statement version(db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (version.executeStep()) return;
    why = "its table 'meta' holds no schema_version";
  }
  std::string shown;
  for (std::size_t i = 0; i < tables.size() && i < 8; ++i) shown += (i == 0 ? "" : ", ") + tables[i];
  if (tables.size() > 8) shown += fmt::format(", ... ({} tables)", tables.size());
  throw std::invalid_argument(
      fmt::format("results store {} is not a jetchar results store ({}; its tables: {}); nothing was written to it",
                  file.string(), why, shown));
}

// The side files SQLite keeps beside a database.
void remove_store_files(const std::filesystem::path& file) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(file.string() + suffix, ec);
}

}  // namespace

ResultsStore::ResultsStore(const std::filesystem::path& file, Access access)
    : file_(file), read_only_(access == Access::kReadOnly) {
  if (read_only_) {
    db_ = open_read_only(file);
    try {
      db_->setBusyTimeout(5000);
      for (const char* table : {"meta", "runs"}) {
        if (!db_->tableExists(table))
          throw std::invalid_argument(fmt::format("has no table '{}': not a jetchar results store", table));
      }
      SQLite::Statement version(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
      if (!version.executeStep()) throw std::invalid_argument("has no schema_version: not a jetchar results store");
      // Versions only added columns and tables, none of which a reader of the blob needs: an older
      // store is read as it is (migrating it would be a write).
      const std::string found = version.getColumn(0).getString();
      if (found.empty() || found.find_first_not_of("0123456789") != std::string::npos || found.size() > 6 ||
          std::stoi(found) < 1 || std::stoi(found) > kSchemaVersion) {
        throw std::invalid_argument(
            fmt::format("schema version '{}'; this jetchar reads versions 1 to {}", found, kSchemaVersion));
      }
      version_ = std::stoi(found);
    } catch (const SQLite::Exception& e) {
      throw std::invalid_argument(fmt::format("results store {}: cannot be read ({})", file.string(), e.what()));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("results store {}: {}", file.string(), e.what()));
    }
    return;
  }
  std::error_code ec;
  const bool created = !std::filesystem::exists(file, ec);
  try {
    db_ = std::make_unique<SQLite::Database>(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db_->setBusyTimeout(5000);
    // Before the first write: switching to WAL rewrites the file's header.
    check_store_or_empty(*db_, file);
    db_->exec("PRAGMA journal_mode=WAL");
    db_->exec("PRAGMA synchronous=FULL");  // a committed run survives power loss
    SQLite::Transaction create(*db_);
    db_->exec(std::string(schema::kResultsStoreMetaTable));
    SQLite::Statement version(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (version.executeStep()) {
      int found = std::stoi(version.getColumn(0).getString());
      const int opened = found;
      version.reset();
      // Each version only added columns and tables: what an older store holds stays valid.
      if (found == 1) {
        // Version 1 lacked the adaptive/marker columns and the meter table (created below).
        db_->exec("ALTER TABLE runs ADD COLUMN adaptive_minibatches INTEGER");
        db_->exec("ALTER TABLE runs ADD COLUMN gpio_marker TEXT");
        found = 2;
      }
      if (found == 2) {
        db_->exec("ALTER TABLE epochs ADD COLUMN start_s REAL");
        found = 3;
      }
      if (found == 3) {
        db_->exec("ALTER TABLE runs ADD COLUMN device_id TEXT");
        found = 4;
      }
      if (found == 4) {
        migrate_to_device_key(*db_);
        found = 5;
      }
      if (found == 5) {
        add_metric_columns(*db_);
        found = 6;
      }
      if (found == 6) {
        add_settings_and_query_columns(*db_);
        found = 7;
      }
      if (found == 7) found = 8;  // table rank_epochs, created below with the rest
      if (found == 8) {
        add_missing_columns(*db_, "epochs", schema::kResultsStoreV9EpochColumns);  // table run_phases below
        found = 9;
      }
      if (found == 9) found = 10;  // table phase_steps, created below with the rest
      if (found != kSchemaVersion) {
        throw std::runtime_error(
            fmt::format("schema version {} (this jetchar reads version {})", opened, kSchemaVersion));
      }
      if (opened != kSchemaVersion) {
        db_->exec(fmt::format("UPDATE meta SET value = '{}' WHERE key = 'schema_version'", kSchemaVersion));
      }
    } else {
      db_->exec(fmt::format("INSERT INTO meta (key, value) VALUES ('schema_version', '{}')", kSchemaVersion));
    }
    db_->exec(kSchema);
    create.commit();
  } catch (const SQLite::Exception& e) {
    // A store this constructor created and could not finish (a full disk) is no store: removed.
    db_.reset();
    if (created) remove_store_files(file);
    // A file that is not a store is bad input, whoever names it; a disk that fails is not; a
    // folder that cannot be written is a permission problem (exit 4).
    const int code = e.getErrorCode() & 0xff;
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      throw std::invalid_argument(fmt::format("results store {}: {}", file.string(), e.what()));
    }
    if (code == SQLITE_READONLY || code == SQLITE_PERM || code == SQLITE_CANTOPEN) {
      const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
      for (const auto& path : {file, folder}) {
        if (::access(path.c_str(), W_OK) != 0 && (errno == EACCES || errno == EROFS)) {
          throw std::system_error(errno, std::generic_category(),
                                  fmt::format("results store {}: {}", file.string(), e.what()));
        }
      }
    }
    throw std::runtime_error(fmt::format("results store {}: {}", file.string(), e.what()));
  } catch (const std::invalid_argument&) {
    db_.reset();
    throw;
  } catch (const std::exception& e) {
    db_.reset();
    if (created) remove_store_files(file);
    throw std::runtime_error(fmt::format("results store {}: {}", file.string(), e.what()));
  }
}

ResultsStore::~ResultsStore() = default;

std::string ResultsStore::runs_device() const {
  // Version 4 had a nullable runs.device_id and older versions none (a read-only store is read as
  // it is): a run without a board is ''.
  if (version_ >= 5) return "device_id";
  return version_ == 4 ? "COALESCE(device_id, '')" : "''";
}

void ResultsStore::save(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples) {
  if (read_only_) throw std::logic_error(fmt::format("results store {} was opened read-only", file_.string()));
  try {
    save_run(result, samples);
  } catch (const std::exception& e) {
    // The transaction was rolled back: every earlier run is intact and this one is not stored.
    throw std::runtime_error(fmt::format("results store {}: run {} not stored: {}; earlier runs are intact",
                                         file_.string(), result.run_id(), e.what()));
  }
}

void ResultsStore::save_batch(const std::vector<proto::RunResult>& results,
                              const std::vector<std::vector<StoredPowerSample>>& samples,
                              const std::map<std::string, SweepPredictions>& predictions) {
  if (read_only_) throw std::logic_error(fmt::format("results store {} was opened read-only", file_.string()));
  if (!samples.empty() && samples.size() != results.size()) {
    throw std::logic_error("ResultsStore::save_batch: samples must be empty or one entry per result");
  }
  try {
    SQLite::Transaction transaction(*db_);
    for (std::size_t i = 0; i < results.size(); ++i)
      write_run(results[i], samples.empty() ? std::vector<StoredPowerSample>{} : samples[i]);
    for (const auto& [sweep, stored] : predictions) write_mode_predictions(*db_, sweep, stored);
    transaction.commit();
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("results store {}: {} runs not stored: {}; earlier runs are intact",
                                         file_.string(), results.size(), e.what()));
  }
}

void ResultsStore::save_run(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples) {
  SQLite::Transaction transaction(*db_);
  write_run(result, samples);
  transaction.commit();
}

void ResultsStore::write_run(const proto::RunResult& result, const std::vector<StoredPowerSample>& samples) {
  erase_run_rows(*db_, result);
  insert_run_row(*db_, result);
  insert_epoch_rows(*db_, result);
  insert_meter_rows(*db_, result);
  insert_minibatch_rows(*db_, result);
  insert_rank_rows(*db_, result);
  insert_phase_rows(*db_, result);
  insert_power_samples(*db_, result, samples);
  insert_setting_rows(*db_, result, result.context().device_id());
}

std::vector<std::string> ResultsStore::devices_of(const std::string& sweep, const std::string& run_id) const {
  SQLite::Statement query(*db_,
                          fmt::format("SELECT {} FROM runs WHERE sweep = ? AND run_id = ? ORDER BY 1", runs_device()));
  query.bind(1, sweep);
  query.bind(2, run_id);
  std::vector<std::string> devices;
  while (query.executeStep()) devices.push_back(query.getColumn(0).getString());
  return devices;
}

std::optional<std::string> ResultsStore::device_of(const std::string& sweep, const std::string& run_id,
                                                   const std::optional<std::string>& device_id) const {
  if (device_id) return device_id;
  const auto devices = devices_of(sweep, run_id);
  if (devices.empty()) return std::nullopt;
  if (devices.size() > 1) {
    std::string named;
    for (const auto& device : devices) named += (named.empty() ? "" : ", ") + (device.empty() ? "''" : device);
    throw std::invalid_argument(
        fmt::format("results store {}: run {} of sweep '{}' is stored by {} boards ({}); name the board",
                    file_.string(), run_id, sweep, devices.size(), named));
  }
  return devices.front();
}

bool ResultsStore::contains(const std::string& sweep, const std::string& run_id,
                            const std::optional<std::string>& device_id) const {
  if (!device_id) return !devices_of(sweep, run_id).empty();
  SQLite::Statement query(*db_,
                          fmt::format("SELECT 1 FROM runs WHERE sweep = ? AND run_id = ? AND {} = ?", runs_device()));
  query.bind(1, sweep);
  query.bind(2, run_id);
  query.bind(3, *device_id);
  return query.executeStep();
}

std::optional<proto::RunResult> ResultsStore::load(const std::string& sweep, const std::string& run_id,
                                                   const std::optional<std::string>& device_id) const {
  const auto device = device_of(sweep, run_id, device_id);
  if (!device) return std::nullopt;
  SQLite::Statement query(
      *db_, fmt::format("SELECT result FROM runs WHERE sweep = ? AND run_id = ? AND {} = ?", runs_device()));
  query.bind(1, sweep);
  query.bind(2, run_id);
  query.bind(3, *device);
  if (!query.executeStep()) return std::nullopt;
  return parse_blob(query.getColumn(0), sweep + "/" + run_id + (device->empty() ? "" : " on " + *device));
}

std::vector<proto::RunResult> ResultsStore::load_all(const std::string& sweep) const {
  SQLite::Statement query(
      *db_, fmt::format("SELECT sweep, run_id, result FROM runs WHERE ? = '' OR sweep = ? ORDER BY sweep, run_id, {}",
                        runs_device()));
  query.bind(1, sweep);
  query.bind(2, sweep);
  std::vector<proto::RunResult> results;
  while (query.executeStep()) {
    results.push_back(
        parse_blob(query.getColumn(2), query.getColumn(0).getString() + "/" + query.getColumn(1).getString()));
  }
  return results;
}

std::vector<StoredRunSummary> ResultsStore::list(const std::string& sweep) const {
  std::vector<StoredRunSummary> summaries;
  for (const auto& result : load_all(sweep)) {
    const auto& spec = result.resolved().has_workload() ? result.resolved() : result.requested();
    StoredRunSummary summary;
    summary.sweep = result.sweep();
    summary.run_id = result.run_id();
    summary.device_id = result.context().device_id();
    summary.status = proto::RunStatus_Name(result.status());
    summary.model = spec.workload().model();
    summary.power_mode = result.context().power_mode();
    summary.batch_size = spec.workload().batch_size();
    summary.workers = spec.loader().workers();
    const EpochMedians medians = warm_epoch_medians(result);
    summary.median_epoch_s = medians.e2e_s;
    summary.median_energy_j = medians.energy_j;
    summary.cold_only = medians.cold_only;
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

std::vector<StoredPowerSample> ResultsStore::power_samples(const std::string& sweep, const std::string& run_id,
                                                           const std::optional<std::string>& device_id) const {
  std::vector<StoredPowerSample> samples;
  const auto device = device_of(sweep, run_id, device_id);
  if (!device) return samples;
  // Before version 5 a (sweep, run_id) had one record and its samples no device column.
  const bool keyed = version_ >= 5;
  SQLite::Statement query(
      *db_, fmt::format("SELECT t_s, channel, power_w FROM power_samples WHERE sweep = ? AND run_id = ?{} "
                        "ORDER BY rowid",
                        keyed ? " AND device_id = ?" : ""));
  query.bind(1, sweep);
  query.bind(2, run_id);
  if (keyed) query.bind(3, *device);
  while (query.executeStep()) {
    samples.push_back({query.getColumn(0).getDouble(), query.getColumn(1).getString(), query.getColumn(2).getDouble()});
  }
  return samples;
}

std::vector<std::string> ResultsStore::sweeps() const {
  SQLite::Statement query(*db_, "SELECT DISTINCT sweep FROM runs ORDER BY sweep");
  std::vector<std::string> names;
  while (query.executeStep()) names.push_back(query.getColumn(0).getString());
  return names;
}

}  // namespace jetchar::results
