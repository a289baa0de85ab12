#include "results/mode_predictions_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <set>
#include <stdexcept>
#include <string>

#include "results/schema/store_schema.h"

namespace jetchar::results {
namespace {

void bind_optional(SQLite::Statement& statement, int index, const std::optional<double>& value) {
  if (value) {
    statement.bind(index, *value);
  } else {
    statement.bind(index);
  }
}

std::optional<double> optional_column(const SQLite::Column& column) {
  if (column.isNull()) return std::nullopt;
  return column.getDouble();
}

}  // namespace

void write_mode_predictions(SQLite::Database& db, const std::string& sweep, const SweepPredictions& stored) {
  const auto& choice = stored.choice;
  db.exec(std::string(schema::kModePredictionsTable));
  SQLite::Statement clear(db, "DELETE FROM mode_predictions WHERE sweep = ?");
  clear.bind(1, sweep);
  clear.exec();
  SQLite::Statement insert(
      db,
      "INSERT INTO mode_predictions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?)");
  for (const auto& p : stored.predictions) {
    insert.reset();
    insert.clearBindings();
    insert.bind(1, sweep);
    insert.bind(2, p.mode);
    insert.bind(3, p.cpu_cores);
    insert.bind(4, static_cast<std::int64_t>(p.cpu_freq_khz));
    insert.bind(5, static_cast<std::int64_t>(p.gpu_freq_khz));
    insert.bind(6, static_cast<std::int64_t>(p.emc_freq_khz));
    insert.bind(7, p.profiled ? 1 : 0);
    insert.bind(8, p.time_s);
    insert.bind(9, p.time_low_s);
    insert.bind(10, p.time_high_s);
    bind_optional(insert, 11, p.power_w);
    bind_optional(insert, 12, p.power_low_w);
    bind_optional(insert, 13, p.power_high_w);
    bind_optional(insert, 14, p.energy_j);
    bind_optional(insert, 15, p.energy_low_j);
    bind_optional(insert, 16, p.energy_high_j);
    bind_optional(insert, 17, p.measured_time_s);
    bind_optional(insert, 18, p.measured_power_w);
    insert.bind(19, p.level);
    insert.bind(20, p.time_form);
    insert.bind(21, p.power_form);
    insert.bind(22, p.modelled ? 1 : 0);
    insert.exec();
  }
  db.exec(std::string(schema::kModeChoicesTable));
  SQLite::Statement clear_choice(db, "DELETE FROM mode_choices WHERE sweep = ?");
  clear_choice.bind(1, sweep);
  clear_choice.exec();
  if (choice) {
    SQLite::Statement row(db, "INSERT INTO mode_choices VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    row.bind(1, sweep);
    row.bind(2, choice->budget);
    row.bind(3, choice->confidence);
    if (choice->mode) {
      row.bind(4, *choice->mode);
    } else {
      row.bind(4);
    }
    row.bind(5, choice->measured ? 1 : 0);
    row.bind(6, choice->eligible);
    row.bind(7, choice->modes);
    bind_optional(row, 8, choice->time_s);
    bind_optional(row, 9, choice->energy_j);
    bind_optional(row, 10, choice->expected_regret_pct);
    bind_optional(row, 11, choice->within_one_pct_probability);
    row.exec();
  }
}

void save_mode_predictions(const std::filesystem::path& store, const std::string& sweep,
                           const std::vector<StoredModePrediction>& predictions,
                           const std::optional<StoredModeChoice>& choice) {
  try {
    SQLite::Database db(store.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.setBusyTimeout(5000);
    SQLite::Transaction transaction(db);
    write_mode_predictions(db, sweep, {predictions, choice});
    transaction.commit();
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(fmt::format("results store {}: cannot store the predictions of sweep '{}': {}",
                                         store.string(), sweep, e.what()));
  }
}

std::vector<StoredModePrediction> load_mode_predictions(const std::filesystem::path& store, const std::string& sweep) {
  std::vector<StoredModePrediction> out;
  try {
    SQLite::Database db(store.string(), SQLite::OPEN_READONLY);
    if (!db.tableExists("mode_predictions")) return out;
    SQLite::Statement query(db,
                            "SELECT mode, cpu_cores, cpu_freq_khz, gpu_freq_khz, emc_freq_khz, profiled, time_s, "
                            "time_low_s, time_high_s, power_w, power_low_w, power_high_w, energy_j, energy_low_j, "
                            "energy_high_j, measured_time_s, measured_power_w, level, time_form, power_form, modelled "
                            "FROM mode_predictions WHERE sweep = ? ORDER BY mode");
    query.bind(1, sweep);
    while (query.executeStep()) {
      StoredModePrediction p;
      p.mode = query.getColumn(0).getString();
      p.cpu_cores = query.getColumn(1).getInt();
      p.cpu_freq_khz = query.getColumn(2).getInt64();
      p.gpu_freq_khz = query.getColumn(3).getInt64();
      p.emc_freq_khz = query.getColumn(4).getInt64();
      p.profiled = query.getColumn(5).getInt() != 0;
      p.time_s = query.getColumn(6).getDouble();
      p.time_low_s = query.getColumn(7).getDouble();
      p.time_high_s = query.getColumn(8).getDouble();
      p.power_w = optional_column(query.getColumn(9));
      p.power_low_w = optional_column(query.getColumn(10));
      p.power_high_w = optional_column(query.getColumn(11));
      p.energy_j = optional_column(query.getColumn(12));
      p.energy_low_j = optional_column(query.getColumn(13));
      p.energy_high_j = optional_column(query.getColumn(14));
      p.measured_time_s = optional_column(query.getColumn(15));
      p.measured_power_w = optional_column(query.getColumn(16));
      p.level = query.getColumn(17).getDouble();
      p.time_form = query.getColumn(18).getString();
      p.power_form = query.getColumn(19).getString();
      p.modelled = query.getColumn(20).getInt() != 0;
      out.push_back(std::move(p));
    }
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(fmt::format("results store {}: cannot read the predictions of sweep '{}': {}",
                                         store.string(), sweep, e.what()));
  }
  return out;
}

std::optional<StoredModeChoice> load_mode_choice(const std::filesystem::path& store, const std::string& sweep) {
  try {
    SQLite::Database db(store.string(), SQLite::OPEN_READONLY);
    if (!db.tableExists("mode_choices")) return std::nullopt;
    SQLite::Statement query(db,
                            "SELECT budget, confidence, mode, measured, eligible, modes, time_s, energy_j, "
                            "expected_regret_pct, within_one_pct_probability FROM mode_choices WHERE sweep = ?");
    query.bind(1, sweep);
    if (!query.executeStep()) return std::nullopt;
    StoredModeChoice c;
    c.budget = query.getColumn(0).getString();
    c.confidence = query.getColumn(1).getDouble();
    if (!query.getColumn(2).isNull()) c.mode = query.getColumn(2).getString();
    c.measured = query.getColumn(3).getInt() != 0;
    c.eligible = query.getColumn(4).getInt64();
    c.modes = query.getColumn(5).getInt64();
    c.time_s = optional_column(query.getColumn(6));
    c.energy_j = optional_column(query.getColumn(7));
    c.expected_regret_pct = optional_column(query.getColumn(8));
    c.within_one_pct_probability = optional_column(query.getColumn(9));
    return c;
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(
        fmt::format("results store {}: cannot read the choice of sweep '{}': {}", store.string(), sweep, e.what()));
  }
}

std::map<std::string, SweepPredictions> load_all_mode_predictions(const std::filesystem::path& store) {
  std::set<std::string> sweeps;
  try {
    SQLite::Database db(store.string(), SQLite::OPEN_READONLY);
    for (const char* table : {"mode_predictions", "mode_choices"}) {
      if (!db.tableExists(table)) continue;
      SQLite::Statement query(db, fmt::format("SELECT DISTINCT sweep FROM {}", table));
      while (query.executeStep()) sweeps.insert(query.getColumn(0).getString());
    }
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(
        fmt::format("results store {}: cannot read which sweeps stored predictions: {}", store.string(), e.what()));
  }
  std::map<std::string, SweepPredictions> out;
  for (const auto& sweep : sweeps) out[sweep] = {load_mode_predictions(store, sweep), load_mode_choice(store, sweep)};
  return out;
}

}  // namespace jetchar::results
