#include "analysis/results_store_reader.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "analysis/input_error.h"
#include "analysis/record_fields.h"
#include "results/schema/store_connection.h"
#include "results/schema/store_schema.h"

namespace jetchar::analysis {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kStoreName = "results.db";
constexpr std::string_view kWhatIsValid =
    "expected a results directory or results.db written by `jetchar sweep run`, or a CSV/JSONL export";

// The columns read here, per table (results/schema/store_schema.h, versions 1 to 5). A store
// without one of them is not one this reader understands; epochs.start_s (version 3) and
// runs.device_id (version 4) are used when present; from version 5 a run is (sweep, run_id,
// device_id) and every table's rows are joined on all three.
const std::map<std::string, std::vector<std::string>>& required_columns() {
  static const std::map<std::string, std::vector<std::string>> columns = {
      {"runs", {"sweep",       "run_id",    "repetition",   "status",       "reason",       "model",
                "dataset",     "task",      "batch_size",   "accumulate",   "workers",      "cache",
                "power_mode",  "cpu_cores", "cpu_freq_mhz", "gpu_freq_mhz", "emc_freq_mhz", "board_kind",
                "board_model", "simulated", "medium",       "energy_source"}},
      {"epochs",
       {"sweep", "run_id", "epoch", "stall_s", "compute_s", "e2e_s", "samples", "loss", "accuracy", "energy_j",
        "incremental_energy_j", "energy_per_sample_j", "average_power_w", "residency_before", "residency_after",
        "read_bytes"}},
      {"minibatches", {"sweep", "run_id", "epoch", "idx", "stall_s", "compute_s", "energy_j"}},
      {"power_samples", {"sweep", "run_id", "t_s", "channel", "power_w"}},
  };
  return columns;
}

bool starts_with_sqlite_header(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 16> header{};
  if (!in.read(header.data(), header.size())) return false;
  return std::string_view(header.data(), header.size()) == std::string_view("SQLite format 3\0", 16);
}

fs::path store_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    fs::path file = path / kStoreName;
    if (!fs::is_regular_file(file, ec)) {
      throw InputError({path}, fmt::format("is a directory without {}; {}", kStoreName, kWhatIsValid));
    }
    return file;
  }
  if (!fs::exists(path, ec)) throw InputError({path}, fmt::format("does not exist; {}", kWhatIsValid));
  return path;
}

// A cell as the CSV export would print it: NULL is missing (""), numbers as fmt's shortest form.
std::string text_of(const SQLite::Column& column) {
  if (column.isNull()) return {};
  if (column.isInteger()) return std::to_string(column.getInt64());
  if (column.isFloat()) return fmt::format("{}", column.getDouble());
  return column.getString();
}

// "lenet5/fashion-mnist", as the export names workloads: the model and the data set's kind.
std::string workload_name(const std::string& model, const std::string& dataset) {
  const std::string kind = dataset.substr(0, dataset.find(':'));
  return kind.empty() ? model : model + "/" + kind;
}

// The channels whose sum is a run's board total, from the label experiments/ stores in
// runs.energy_source ("board input VDD_IN", "sum of module rails (A + B + C)"); empty for any
// other text (an older or hand-made store).
std::vector<std::string> total_channels(std::string energy_source) {
  // Node 0 of a data-parallel run across machines sums every board's energy ("sum over 3 boards of
  // board input VDD_IN"); the power samples it stores are its own board's, whose total is the rest.
  if (const auto of = energy_source.find(" boards of ");
      energy_source.starts_with("sum over ") && of != std::string::npos)
    energy_source.erase(0, of + 11);
  std::string names;
  if (energy_source.starts_with("board input ")) {
    names = energy_source.substr(12);
  } else if (energy_source.starts_with("sum of module rails (") && energy_source.ends_with(")")) {
    names = energy_source.substr(21, energy_source.size() - 22);
  }
  std::vector<std::string> channels;
  for (std::size_t at = 0; !names.empty() && at != std::string::npos;) {
    const std::size_t plus = names.find(" + ", at);
    channels.push_back(names.substr(at, plus == std::string::npos ? std::string::npos : plus - at));
    at = plus == std::string::npos ? plus : plus + 3;
  }
  return channels;
}

struct RunRow {
  std::string sweep, run_id, device_id, config, energy_source;
  std::vector<std::pair<double, double>> epoch_e2e_power;  // (e2e_s, average power or nullopt → NaN)
  std::vector<double> epoch_start_s;                       // after the run's start; NaN when not stored
  std::vector<int> epochs;
};

double or_nan(const SQLite::Column& column) { return column.isNull() ? std::nan("") : column.getDouble(); }

// What a store holds beyond the tables every version has (ResultsStoreReader's constructor finds out).
struct StoreLayout {
  bool minibatches = false;
  bool power_samples = false;
  bool epoch_start = false;      ///< epochs.start_s (schema 3)
  bool keyed_by_device = false;  ///< schema 5: a run is (sweep, run_id, device_id)
};

// OK runs and their epochs, by (sweep, run_id, board): a trace comes from the first run that has
// the richest power data, so the same store always gives the same plot.
std::vector<RunRow> ok_runs(SQLite::Database& db, const StoreLayout& layout) {
  std::vector<RunRow> runs;
  SQLite::Statement query(
      db, fmt::format(R"sql(
SELECT r.sweep, r.run_id, r.model, r.dataset, r.power_mode, r.batch_size, r.workers, e.epoch, e.e2e_s,
       COALESCE(e.average_power_w, e.energy_j / NULLIF(e.e2e_s, 0)), {}, r.energy_source, {}
FROM runs r JOIN epochs e ON e.sweep = r.sweep AND e.run_id = r.run_id{}
WHERE r.status = 'OK' ORDER BY r.sweep, r.run_id, 13, e.epoch)sql",
                      layout.epoch_start ? "e.start_s" : "NULL", layout.keyed_by_device ? "r.device_id" : "''",
                      layout.keyed_by_device ? " AND e.device_id = r.device_id" : ""));
  while (query.executeStep()) {
    const std::string sweep = query.getColumn(0).getString(), run_id = query.getColumn(1).getString();
    const std::string device_id = query.getColumn(12).getString();
    if (runs.empty() || runs.back().sweep != sweep || runs.back().run_id != run_id ||
        runs.back().device_id != device_id) {
      runs.push_back(
          {sweep,
           run_id,
           device_id,
           fmt::format("{} | {} | batch={} workers={}",
                       workload_name(query.getColumn(2).getString(), query.getColumn(3).getString()),
                       query.getColumn(4).getString(), text_of(query.getColumn(5)), text_of(query.getColumn(6))),
           query.getColumn(11).getString(),
           {},
           {},
           {}});
    }
    runs.back().epochs.push_back(query.getColumn(7).getInt());
    runs.back().epoch_e2e_power.emplace_back(query.getColumn(8).getDouble(), or_nan(query.getColumn(9)));
    runs.back().epoch_start_s.push_back(or_nan(query.getColumn(10)));
  }
  return runs;
}

// The epoch shown: the first warm one (epoch 0 runs on a cold cache) when there is one.
std::size_t shown_epoch(const RunRow& run) { return run.epochs.size() > 1 ? std::size_t{1} : std::size_t{0}; }

// Start of epoch k on the run's clock: as stored (schema 3), else estimated as epochs back to
// back from the run's first sample.
double epoch_start(const RunRow& run, std::size_t k, double first_sample) {
  if (!std::isnan(run.epoch_start_s[k])) return run.epoch_start_s[k];
  double t = first_sample;
  for (std::size_t i = 0; i < k; ++i) t += run.epoch_e2e_power[i].first;
  return t;
}

struct Minibatch {
  double stall_s, compute_s, energy_j;
};

// The minibatch records of one epoch of a run, in order (none when the store has no such table).
std::vector<Minibatch> minibatches_of(SQLite::Database& db, const StoreLayout& layout, const RunRow& run, int epoch) {
  std::vector<Minibatch> out;
  if (!layout.minibatches) return out;
  SQLite::Statement query(
      db, fmt::format("SELECT stall_s, compute_s, energy_j FROM minibatches WHERE sweep = ? AND run_id = ? "
                      "AND epoch = ?{} ORDER BY idx",
                      layout.keyed_by_device ? " AND device_id = ?" : ""));
  query.bind(1, run.sweep);
  query.bind(2, run.run_id);
  query.bind(3, epoch);
  if (layout.keyed_by_device) query.bind(4, run.device_id);
  while (query.executeStep()) {
    out.push_back({query.getColumn(0).getDouble(), query.getColumn(1).getDouble(), or_nan(query.getColumn(2))});
  }
  return out;
}

// The epoch's start (t = 0, its own marker: the first power sample is rarely at that very
// moment) and the fetch/compute markers of its first minibatches (more would hide the curve).
void add_phase_markers(int epoch, const std::vector<Minibatch>& batches, std::vector<TraceSample>& samples) {
  constexpr std::size_t kMarkedMinibatches = 8;
  double t = 0;
  samples.push_back({t, std::nan(""), fmt::format("epoch {}", epoch)});
  for (std::size_t i = 0; i < batches.size() && i < kMarkedMinibatches; ++i) {
    samples.push_back({t, std::nan(""), fmt::format("fetch {}", i)});
    samples.push_back({t + batches[i].stall_s, std::nan(""), fmt::format("compute {}", i)});
    t += batches[i].stall_s + batches[i].compute_s;
  }
}

// Samples in time order, each marker with the power of the sample at or before it (markers carry
// no power of their own; one before the first sample takes the first sample's power).
std::vector<TraceSample> in_time_order(std::vector<TraceSample> samples) {
  std::stable_sort(samples.begin(), samples.end(),
                   [](const TraceSample& a, const TraceSample& b) { return a.t_s < b.t_s; });
  std::optional<double> last;
  for (const auto& s : samples) {
    if (!std::isnan(s.power_w)) {
      last = s.power_w;
      break;
    }
  }
  for (auto& s : samples) {
    if (std::isnan(s.power_w)) s.power_w = *last;
    else last = s.power_w;
  }
  return samples;
}

// A run's stored power samples, per channel, in time order.
std::map<std::string, std::vector<std::pair<double, double>>> samples_by_channel(SQLite::Database& db,
                                                                                 const StoreLayout& layout,
                                                                                 const RunRow& run) {
  SQLite::Statement query(
      db, fmt::format("SELECT t_s, channel, power_w FROM power_samples WHERE sweep = ? AND run_id = ?{} "
                      "ORDER BY t_s, rowid",
                      layout.keyed_by_device ? " AND device_id = ?" : ""));
  query.bind(1, run.sweep);
  query.bind(2, run.run_id);
  if (layout.keyed_by_device) query.bind(3, run.device_id);
  std::map<std::string, std::vector<std::pair<double, double>>> by_channel;
  while (query.executeStep()) {
    by_channel[query.getColumn(1).getString()].emplace_back(query.getColumn(0).getDouble(),
                                                            query.getColumn(2).getDouble());
  }
  return by_channel;
}

// The board total as the run defined it (runs.energy_source): its input rail, or the sum of its
// module rails at each sample time (a sub-rail such as AGX Orin's VDDQ_VDD2_1V8AO is already
// inside another rail and never added). Stores without that label: VDD_IN or POM_5V_IN when
// stored, else every channel. `channel_text` names the channels summed.
std::vector<std::pair<double, double>> board_total(
    const std::map<std::string, std::vector<std::pair<double, double>>>& by_channel, const std::string& energy_source,
    std::string& channel_text) {
  std::vector<std::string> channels = total_channels(energy_source);
  if (channels.empty()) {
    for (const char* input : {"VDD_IN", "POM_5V_IN"}) {
      if (by_channel.count(input)) channels = {input};
    }
    if (channels.empty()) {
      for (const auto& entry : by_channel) channels.push_back(entry.first);
    }
  }
  std::map<double, std::pair<double, std::size_t>> sum;  // t → (power, channels seen)
  for (const auto& name : channels) {
    channel_text += (channel_text.empty() ? "" : " + ") + name;
    if (!by_channel.count(name)) continue;
    for (const auto& [t, p] : by_channel.at(name)) {
      sum[t].first += p;
      ++sum[t].second;
    }
  }
  std::vector<std::pair<double, double>> total;
  for (const auto& [t, entry] : sum) {
    if (entry.second == channels.size()) total.emplace_back(t, entry.first);  // a failed read leaves no total
  }
  return total;
}

// 1. Stored power samples: the board total over the shown epoch, with its phase markers.
std::optional<StoredPowerTrace> trace_from_power_samples(SQLite::Database& db, const StoreLayout& layout,
                                                         const std::vector<RunRow>& runs) {
  for (const RunRow& run : runs) {
    const auto by_channel = samples_by_channel(db, layout, run);
    if (by_channel.empty()) continue;
    std::string channel_text;
    const std::vector<std::pair<double, double>> total = board_total(by_channel, run.energy_source, channel_text);
    if (total.empty()) continue;
    const std::size_t k = shown_epoch(run);
    const double start = epoch_start(run, k, total.front().first), end = start + run.epoch_e2e_power[k].first;
    std::vector<TraceSample> samples;
    for (const auto& [t, p] : total) {
      if (t >= start && t <= end) samples.push_back({t - start, p, std::nullopt});
    }
    if (samples.size() < 2) continue;
    add_phase_markers(run.epochs[k], minibatches_of(db, layout, run, run.epochs[k]), samples);
    return StoredPowerTrace{
        run.sweep + "/" + run.run_id, run.config,
        fmt::format("stored power samples ({}), epoch {}{}", channel_text, run.epochs[k],
                    std::isnan(run.epoch_start_s[k]) ? "; its start is estimated from the epoch times" : ""),
        in_time_order(std::move(samples))};
  }
  return std::nullopt;
}

// 2. Minibatch energies: a step per minibatch of the shown epoch.
std::optional<StoredPowerTrace> trace_from_minibatch_energies(SQLite::Database& db, const StoreLayout& layout,
                                                              const std::vector<RunRow>& runs) {
  for (const RunRow& run : runs) {
    const std::size_t k = shown_epoch(run);
    auto batches = minibatches_of(db, layout, run, run.epochs[k]);
    if (batches.empty() ||
        std::any_of(batches.begin(), batches.end(), [](const Minibatch& m) { return std::isnan(m.energy_j); }))
      continue;
    std::vector<TraceSample> samples;
    double t = 0;
    for (const Minibatch& m : batches) {
      const double duration = m.stall_s + m.compute_s;
      if (duration <= 0) continue;
      samples.push_back({t, m.energy_j / duration, std::nullopt});
      samples.push_back({t + duration, m.energy_j / duration, std::nullopt});
      t += duration;
    }
    if (samples.empty()) continue;
    add_phase_markers(run.epochs[k], batches, samples);
    return StoredPowerTrace{
        run.sweep + "/" + run.run_id, run.config,
        fmt::format("average power of each minibatch (its energy / its time), epoch {}", run.epochs[k]),
        in_time_order(std::move(samples))};
  }
  return std::nullopt;
}

// 3. Epoch averages over the whole run.
std::optional<StoredPowerTrace> trace_from_epoch_averages(const std::vector<RunRow>& runs) {
  for (const RunRow& run : runs) {
    std::vector<TraceSample> samples;
    double t = 0;
    for (std::size_t i = 0; i < run.epochs.size(); ++i) {
      const auto [e2e, power] = run.epoch_e2e_power[i];
      if (!std::isnan(power)) {
        samples.push_back({t, power, fmt::format("epoch {}", run.epochs[i])});
        samples.push_back({t + e2e, power, std::nullopt});
      }
      t += e2e;
    }
    if (samples.empty()) continue;
    return StoredPowerTrace{
        run.sweep + "/" + run.run_id, run.config,
        "average power of each epoch (the store has no power samples or minibatch energies for this sweep)",
        in_time_order(std::move(samples))};
  }
  return std::nullopt;
}

// The columns records() reads, named as the export names them (results/export.cpp),
// so that record_fields.cpp maps both.
constexpr std::array<const char*, 22> kRunColumns = {
    "sweep",        "run_id",     "repetition", "status",    "reason", "model",        "dataset",      "task",
    "batch",        "accumulate", "workers",    "cache",     "mode",   "cpu_cores",    "cpu_freq_mhz", "gpu_freq_mhz",
    "emc_freq_mhz", "board_kind", "device",     "simulated", "medium", "energy_source"};
constexpr std::array<const char*, 14> kEpochColumns = {"epoch",
                                                       "e2e_s",
                                                       "stall_s",
                                                       "compute_s",
                                                       "samples",
                                                       "energy_j",
                                                       "incremental_energy_j",
                                                       "energy_per_sample_j",
                                                       "avg_power_w",
                                                       "loss",
                                                       "accuracy",
                                                       "residency_before_ratio",
                                                       "residency_after_ratio",
                                                       "read_bytes"};
// Task metrics (schema 6), by the export's names: scores on the validation split per epoch and
// the run's time and energy to target. Older stores have none (NULL).
constexpr std::array<std::pair<const char*, const char*>, 12> kMetricColumns = {{
    {"e.eval_loss", "eval_loss"},
    {"e.eval_accuracy", "eval_accuracy_ratio"},
    {"e.eval_entity_precision", "eval_entity_precision_ratio"},
    {"e.eval_entity_recall", "eval_entity_recall_ratio"},
    {"e.eval_entity_f1", "eval_entity_f1_ratio"},
    {"e.eval_exact_match", "eval_exact_match_ratio"},
    {"e.eval_squad_f1", "eval_squad_f1_ratio"},
    {"r.target_f1", "target_f1_ratio"},
    {"r.target_epoch", "target_epoch"},
    {"r.time_to_target_s", "time_to_target_s"},
    {"r.energy_to_target_j", "energy_to_target_j"},
    {"r.wall_to_target_s", "wall_to_target_s"},
}};

}  // namespace

bool is_results_store(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::is_regular_file(path / kStoreName, ec);
  return fs::is_regular_file(path, ec) && starts_with_sqlite_header(path);
}

ResultsStoreReader::ResultsStoreReader(const fs::path& path) : file_(store_file(path)) {
  if (!starts_with_sqlite_header(file_)) {
    throw InputError({file_}, fmt::format("is not an SQLite database; {}", kWhatIsValid));
  }
  try {
    // Read-only: analysing a store must never change it, even while a sweep is still writing
    // (results/schema/store_connection.h says how).
    db_ = results::schema::open_without_trace(file_);
    db_->setBusyTimeout(5000);
    if (!db_->tableExists("meta")) {
      throw InputError({file_}, fmt::format("has no table 'meta': not a jetchar results store; {}", kWhatIsValid));
    }
    SQLite::Statement version(*db_, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (!version.executeStep()) {
      throw InputError({file_}, "has no schema_version in table 'meta': not a jetchar results store");
    }
    const std::string found = version.getColumn(0).getString();
    const auto number = parse_number(found);
    if (!number || *number != std::floor(*number) || *number < kOldestSchemaVersion || *number > kNewestSchemaVersion) {
      throw InputError({file_}, fmt::format("results store schema version '{}'; this jetchar reads versions {} to {} "
                                            "(use the jetchar that wrote it, or its CSV/JSONL export)",
                                            found, kOldestSchemaVersion, kNewestSchemaVersion));
    }
    schema_version_ = static_cast<int>(*number);
    keyed_by_device_ = schema_version_ >= 5;
    has_run_settings_ = schema_version_ >= 7 && db_->tableExists("run_settings");
    for (const auto& [table, columns] : required_columns()) {
      const bool optional_table = table == "minibatches" || table == "power_samples";
      if (!db_->tableExists(table)) {
        if (optional_table) continue;
        throw InputError(
            {file_}, fmt::format("schema version {} but no table '{}'; the store is damaged", schema_version_, table));
      }
      std::set<std::string> present;
      SQLite::Statement info(*db_, fmt::format("PRAGMA table_info({})", table));
      while (info.executeStep()) present.insert(info.getColumn(1).getString());
      std::string missing;
      for (const auto& column : columns) {
        if (!present.count(column)) missing += (missing.empty() ? "" : ", ") + column;
      }
      if (!missing.empty()) {
        throw InputError({file_}, fmt::format("table '{}' lacks column(s) {}; not the results store schema version {} "
                                              "this jetchar reads",
                                              table, missing, schema_version_));
      }
      if (table == "minibatches") has_minibatches_ = true;
      if (table == "power_samples") has_power_samples_ = true;
      if (table == "epochs") has_epoch_start_ = present.count("start_s") > 0;
      if (table == "runs") has_device_id_ = present.count("device_id") > 0;
    }
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({}); {}", e.what(), kWhatIsValid));
  }
}

ResultsStoreReader::~ResultsStoreReader() = default;

namespace {

// Table run_settings (schema 7) by run: "sweep\x1frun_id\x1fdevice_id" -> (setting, value).
using RunSettings = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

std::string run_settings_key(const std::string& sweep, const std::string& run_id, const std::string& device_id) {
  return sweep + '\x1f' + run_id + '\x1f' + device_id;
}

RunSettings read_run_settings(SQLite::Database& db) {
  RunSettings settings;
  SQLite::Statement query(db, "SELECT sweep, run_id, device_id, setting, value FROM run_settings");
  while (query.executeStep()) {
    settings[run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(),
                              query.getColumn(2).getString())]
        .emplace_back(query.getColumn(3).getString(), query.getColumn(4).getString());
  }
  return settings;
}

// A data-parallel epoch's communication, as the recording rank (the run's lowest) saw it
// (schema 8, table rank_epochs): by run_settings_key + "/" + epoch.
std::map<std::string, std::pair<double, double>> read_recording_rank_communication(SQLite::Database& db) {
  std::map<std::string, std::pair<double, double>> communication;
  if (!db.tableExists("rank_epochs")) return communication;
  SQLite::Statement query(
      db,
      "SELECT sweep, run_id, device_id, epoch, allreduce_s, exposed_communication_s FROM rank_epochs "
      "ORDER BY sweep, run_id, device_id, epoch, rank DESC");
  while (query.executeStep()) {
    communication[run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(),
                                   query.getColumn(2).getString()) +
                  "/" + query.getColumn(3).getString()] = {query.getColumn(4).getDouble(),
                                                           query.getColumn(5).getDouble()};
  }
  return communication;
}

// An epoch's energy from an external meter: the first meter the run configured (the first row the
// writer inserted, as the export takes the record's first), by run_settings_key + "/" + epoch; a
// store whose epoch_meters has no device_id (before schema 5) keys every run on device "".
struct MeterEpoch {
  std::string meter;
  std::optional<double> energy_j, average_power_w;
};
struct MeterEpochs {
  std::map<std::string, MeterEpoch> by_key;
  bool by_device = false;
};
MeterEpochs read_first_meter_epochs(SQLite::Database& db) {
  MeterEpochs meters;
  if (!db.tableExists("epoch_meters")) return meters;
  SQLite::Statement info(db, "PRAGMA table_info(epoch_meters)");
  while (info.executeStep()) meters.by_device |= info.getColumn(1).getString() == "device_id";
  SQLite::Statement query(db, fmt::format("SELECT sweep, run_id, {}, epoch, meter, energy_j, average_power_w "
                                          "FROM epoch_meters ORDER BY rowid",
                                          meters.by_device ? "device_id" : "''"));
  while (query.executeStep()) {
    const std::string key = run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(),
                                             query.getColumn(2).getString()) +
                            "/" + query.getColumn(3).getString();
    if (meters.by_key.contains(key)) continue;
    auto value = [&](int column) {
      return query.getColumn(column).isNull() ? std::nullopt
                                              : std::optional<double>(query.getColumn(column).getDouble());
    };
    meters.by_key[key] = {query.getColumn(4).getString(), value(5), value(6)};
  }
  return meters;
}

}  // namespace

std::vector<RunRecord> ResultsStoreReader::records() const {
  std::string metric_select;
  for (const auto& [column, name] : kMetricColumns) {
    metric_select += fmt::format(", {}", schema_version_ >= 6 ? column : "NULL");
  }
  for (const auto& [column, type] : results::schema::kResultsStoreV7RunColumns) {
    metric_select += fmt::format(", {}", schema_version_ >= 7 ? "r." + std::string(column) : "NULL");
  }
  metric_select += schema_version_ >= 9 ? ", e.phase" : ", NULL";
  std::vector<RunRecord> records;
  try {
    // Several board models in one store (a merged fleet of several kinds): each record names its kind.
    SQLite::Statement models(*db_, "SELECT COUNT(DISTINCT board_model) FROM runs");
    const bool several_kinds = models.executeStep() && models.getColumn(0).getInt64() > 1;
    const RunSettings settings = has_run_settings_ ? read_run_settings(*db_) : RunSettings{};
    const auto communication = read_recording_rank_communication(*db_);
    const auto meters = read_first_meter_epochs(*db_);
    SQLite::Statement query(
        *db_,
        fmt::format(R"sql(
SELECT r.sweep, r.run_id, r.repetition, r.status, r.reason, r.model, r.dataset, r.task, r.batch_size, r.accumulate,
       r.workers, r.cache, r.power_mode, r.cpu_cores, r.cpu_freq_mhz, r.gpu_freq_mhz, r.emc_freq_mhz, r.board_kind,
       {}, r.simulated, r.medium, r.energy_source,
       e.epoch, e.e2e_s, e.stall_s, e.compute_s, e.samples, e.energy_j, e.incremental_energy_j, e.energy_per_sample_j,
       e.average_power_w, e.loss, e.accuracy, e.residency_before, e.residency_after, e.read_bytes, r.board_model
       , {}{}
FROM runs r LEFT JOIN epochs e ON e.sweep = r.sweep AND e.run_id = r.run_id{}
ORDER BY r.sweep, r.run_id, {}, e.epoch)sql",
                    has_device_id_ ? "COALESCE(NULLIF(r.device_id, ''), r.board_model)" : "r.board_model",
                    has_device_id_ ? "COALESCE(r.device_id, '')" : "''", metric_select,
                    keyed_by_device_ ? " AND e.device_id = r.device_id" : "", has_device_id_ ? "r.device_id" : "1"));
    while (query.executeStep()) {
      RunRecord record;
      // One run id of two boards is two runs (schema 5): the board names which.
      const std::string device_id =
          query.getColumn(static_cast<int>(kRunColumns.size() + kEpochColumns.size() + 1)).getString();
      const std::string run = query.getColumn(0).getString() + "/" + query.getColumn(1).getString() +
                              (keyed_by_device_ && !device_id.empty() ? " on " + device_id : "");
      const std::string epoch = text_of(query.getColumn(22));
      record.source = fmt::format("{}: run {}{}", file_.string(), run, epoch.empty() ? "" : " epoch " + epoch);
      const InputLocation where{file_, 0, std::nullopt};
      try {
        for (std::size_t i = 0; i < kRunColumns.size(); ++i) {
          std::string text = text_of(query.getColumn(static_cast<int>(i)));
          if (std::string_view(kRunColumns[i]) == "simulated") text = text == "1" ? "true" : "false";
          set_record_field(record, kRunColumns[i], text, where);
        }
        for (std::size_t i = 0; i < kEpochColumns.size(); ++i) {
          set_record_field(record, kEpochColumns[i], text_of(query.getColumn(static_cast<int>(kRunColumns.size() + i))),
                           where);
        }
        const auto first_metric = static_cast<int>(kRunColumns.size() + kEpochColumns.size() + 2);
        for (std::size_t i = 0; i < kMetricColumns.size(); ++i) {
          set_record_field(record, kMetricColumns[i].second,
                           text_of(query.getColumn(first_metric + static_cast<int>(i))), where);
        }
        // An inference run's query figures (schema 7), by the export's names.
        const auto first_query = first_metric + static_cast<int>(kMetricColumns.size());
        for (std::size_t i = 0; i < results::schema::kResultsStoreV7RunColumns.size(); ++i) {
          set_record_field(record, results::schema::kResultsStoreV7RunColumns[i].first,
                           text_of(query.getColumn(first_query + static_cast<int>(i))), where);
        }
        // A phased pretraining run's epoch (schema 9): its phase, a metric (not an axis: the
        // phases are one run's, which its "phases" setting keys).
        if (const auto& phase =
                query.getColumn(first_query + static_cast<int>(results::schema::kResultsStoreV7RunColumns.size()));
            !phase.isNull() && phase.getInt64() > 0) {
          record.metrics["phase"] = static_cast<double>(phase.getInt64());
        }
        if (const auto found = settings.find(
                run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(), device_id));
            found != settings.end()) {
          // After the flat columns: a setting that is one of them (batch, workers, ...) takes the
          // text the export writes.
          for (const auto& [setting, value] : found->second) set_record_field(record, setting, value, where);
        }
        if (const auto found = communication.find(
                run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(), device_id) + "/" +
                epoch);
            found != communication.end()) {
          record.metrics["allreduce_s"] = found->second.first;
          record.metrics["exposed_communication_s"] = found->second.second;
        }
        if (const auto found =
                meters.by_key.find(run_settings_key(query.getColumn(0).getString(), query.getColumn(1).getString(),
                                                    meters.by_device ? device_id : "") +
                                   "/" + epoch);
            found != meters.by_key.end()) {
          // As the export's meter, meter_energy_j and meter_avg_power_w columns read.
          record.meter = found->second.meter;
          if (found->second.energy_j) record.metrics["meter_energy_j"] = *found->second.energy_j;
          if (found->second.average_power_w) record.metrics["meter_avg_power_w"] = *found->second.average_power_w;
        }
      } catch (const InputError& e) {
        // Name the run: a store has no line numbers.
        std::string problem = e.what();
        const std::string prefix = file_.string() + ": ";
        if (problem.starts_with(prefix)) problem.erase(0, prefix.size());
        throw InputError(where, fmt::format("run {}: {}", run, problem));
      }
      record.workload = workload_name(query.getColumn(5).getString(), query.getColumn(6).getString());
      record.board = query.getColumn(static_cast<int>(kRunColumns.size() + kEpochColumns.size())).getString();
      if (several_kinds) {
        record.axes["board"] = query.getColumn(static_cast<int>(kRunColumns.size() + kEpochColumns.size())).getString();
      }
      check_record(record, where);
      records.push_back(std::move(record));
    }
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({})", e.what()));
  }
  return records;
}

std::optional<StoredPowerTrace> ResultsStoreReader::power_trace() const {
  try {
    const StoreLayout layout{has_minibatches_, has_power_samples_, has_epoch_start_, keyed_by_device_};
    const std::vector<RunRow> runs = ok_runs(*db_, layout);
    if (runs.empty()) return std::nullopt;
    if (layout.power_samples) {
      if (auto trace = trace_from_power_samples(*db_, layout, runs)) return trace;
    }
    if (auto trace = trace_from_minibatch_energies(*db_, layout, runs)) return trace;
    return trace_from_epoch_averages(runs);
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({})", e.what()));
  }
}

std::vector<StoredModePrediction> ResultsStoreReader::mode_predictions() const {
  // The columns of results/schema/store_schema.h's results::schema::kModePredictionsTable, in the order
  // read below.
  static constexpr std::array<const char*, 22> kColumns = {
      "sweep",        "mode",      "cpu_cores",    "cpu_freq_khz",  "gpu_freq_khz",    "emc_freq_khz",
      "profiled",     "time_s",    "time_low_s",   "time_high_s",   "power_w",         "power_low_w",
      "power_high_w", "energy_j",  "energy_low_j", "energy_high_j", "measured_time_s", "measured_power_w",
      "level",        "time_form", "power_form",   "modelled"};
  std::vector<StoredModePrediction> out;
  try {
    if (!db_->tableExists("mode_predictions")) return out;
    std::set<std::string> present;
    SQLite::Statement info(*db_, "PRAGMA table_info(mode_predictions)");
    while (info.executeStep()) present.insert(info.getColumn(1).getString());
    std::string missing;
    for (const char* column : kColumns) {
      if (!present.count(column)) missing += (missing.empty() ? "" : ", ") + std::string(column);
    }
    if (!missing.empty()) {
      throw InputError({file_}, fmt::format("table 'mode_predictions' lacks column(s) {}; not the table "
                                            "`jetchar sweep run` writes for adaptive_profile sweeps",
                                            missing));
    }
    std::string columns;
    for (const char* column : kColumns) columns += (columns.empty() ? "" : ", ") + std::string(column);
    SQLite::Statement query(*db_, fmt::format("SELECT {} FROM mode_predictions ORDER BY sweep, cpu_cores, "
                                              "cpu_freq_khz, gpu_freq_khz, emc_freq_khz, mode",
                                              columns));
    while (query.executeStep()) {
      StoredModePrediction p;
      p.sweep = query.getColumn(0).getString();
      p.mode.name = query.getColumn(1).getString();
      const std::string where = fmt::format("mode_predictions: sweep {} mode {}", p.sweep, p.mode.name);
      const auto bad = [&](int column, const std::string& value, std::string_view valid) {
        return InputError({file_},
                          fmt::format("{}: {} {} {}", where, kColumns[static_cast<std::size_t>(column)], value, valid));
      };
      const auto knob = [&](int column) -> std::optional<std::int64_t> {
        const SQLite::Column c = query.getColumn(column);
        if (c.isNull()) return std::nullopt;
        if (!c.isInteger() || c.getInt64() < 0) throw bad(column, text_of(c), "is not a count or a frequency in kHz");
        return c.getInt64() > 0 ? std::optional(c.getInt64()) : std::nullopt;  // 0: not known
      };
      if (const auto cores = knob(2)) p.mode.cpu_cores = static_cast<int>(*cores);
      p.mode.cpu_freq_khz = knob(3);
      p.mode.gpu_freq_khz = knob(4);
      p.mode.emc_freq_khz = knob(5);
      const auto flag = [&](int column) {
        const SQLite::Column c = query.getColumn(column);
        if (!c.isInteger() || (c.getInt64() != 0 && c.getInt64() != 1)) throw bad(column, text_of(c), "is not 0 or 1");
        return c.getInt64() == 1;
      };
      p.profiled = flag(6);
      p.modelled = flag(21);
      // A positive finite number, or nullopt for NULL where NULL is allowed.
      const auto positive = [&](int column, bool required) -> std::optional<double> {
        const SQLite::Column c = query.getColumn(column);
        if (c.isNull()) {
          if (required) throw bad(column, "NULL", "is missing; it must be a positive number");
          return std::nullopt;
        }
        const double v = c.isInteger() || c.isFloat() ? c.getDouble() : std::nan("");
        if (!(v > 0) || !std::isfinite(v)) throw bad(column, text_of(c), "is not a positive number");
        return v;
      };
      // value, low, high at `column`..column+2: all three or (where allowed) none, low <= value <= high.
      const auto interval = [&](int column, bool required) -> std::optional<Interval> {
        const auto value = positive(column, required);
        const auto low = positive(column + 1, required || value.has_value());
        const auto high = positive(column + 2, required || value.has_value());
        if (!value) {
          if (low || high) throw bad(column, "NULL", "is missing while its interval bounds are given");
          return std::nullopt;
        }
        if (*low > *value) {
          throw bad(column + 1, fmt::format("{}", *low), fmt::format("is above its value {}", *value));
        }
        if (*high < *value) {
          throw bad(column + 2, fmt::format("{}", *high), fmt::format("is below its value {}", *value));
        }
        return Interval{*value, *low, *high};
      };
      p.time_s = *interval(7, true);
      p.power_w = interval(10, false);
      p.energy_j = interval(13, false);
      p.measured_time_s = positive(16, false);
      p.measured_power_w = positive(17, false);
      const SQLite::Column level = query.getColumn(18);
      p.level = level.isInteger() || level.isFloat() ? level.getDouble() : std::nan("");
      if (!(p.level > 0 && p.level < 1)) throw bad(18, text_of(level), "is not a coverage in (0, 1)");
      p.time_form = text_of(query.getColumn(19));
      p.power_form = text_of(query.getColumn(20));
      out.push_back(std::move(p));
    }
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({})", e.what()));
  }
  return out;
}

std::vector<StoredModeChoice> ResultsStoreReader::mode_choices() const {
  static constexpr std::array<const char*, 11> kColumns = {"sweep",
                                                           "budget",
                                                           "confidence",
                                                           "mode",
                                                           "measured",
                                                           "eligible",
                                                           "modes",
                                                           "time_s",
                                                           "energy_j",
                                                           "expected_regret_pct",
                                                           "within_one_pct_probability"};
  std::vector<StoredModeChoice> out;
  try {
    if (!db_->tableExists("mode_choices")) return out;
    std::string columns;
    for (const char* column : kColumns) columns += (columns.empty() ? "" : ", ") + std::string(column);
    SQLite::Statement query(*db_, fmt::format("SELECT {} FROM mode_choices ORDER BY sweep", columns));
    while (query.executeStep()) {
      StoredModeChoice c;
      c.sweep = text_of(query.getColumn(0));
      const auto bad = [&](int column, std::string_view valid) {
        return InputError(
            {file_}, fmt::format("mode_choices: sweep {}: {} {} {}", c.sweep,
                                 kColumns[static_cast<std::size_t>(column)], text_of(query.getColumn(column)), valid));
      };
      const auto number = [&](int column) {
        const SQLite::Column v = query.getColumn(column);
        return v.isInteger() || v.isFloat() ? v.getDouble() : std::nan("");
      };
      const auto count = [&](int column) {
        const SQLite::Column v = query.getColumn(column);
        if (!v.isInteger() || v.getInt64() < 0) throw bad(column, "is not a count");
        return static_cast<std::size_t>(v.getInt64());
      };
      if (query.getColumn(1).isNull()) throw bad(1, "is missing");
      c.budget = text_of(query.getColumn(1));
      c.confidence = number(2);
      if (!(c.confidence > 0.5 && c.confidence < 1)) throw bad(2, "is not a confidence in (0.5, 1)");
      if (!query.getColumn(3).isNull()) c.mode = text_of(query.getColumn(3));
      const SQLite::Column measured = query.getColumn(4);
      if (!measured.isInteger() || (measured.getInt64() != 0 && measured.getInt64() != 1))
        throw bad(4, "is not 0 or 1");
      c.measured = measured.getInt64() == 1;
      c.eligible = count(5);
      c.modes = count(6);
      if (c.eligible > c.modes) throw bad(5, fmt::format("is more than the {} modes", c.modes));
      const auto positive = [&](int column) -> std::optional<double> {
        if (query.getColumn(column).isNull()) return std::nullopt;
        const double v = number(column);
        if (!(v > 0) || !std::isfinite(v)) throw bad(column, "is not a positive number");
        return v;
      };
      c.time_s = positive(7);
      c.energy_j = positive(8);
      if (!query.getColumn(9).isNull()) {
        c.expected_regret_pct = number(9);
        if (!(*c.expected_regret_pct >= 0) || !std::isfinite(*c.expected_regret_pct))
          throw bad(9, "is not a percentage of at least 0");
      }
      if (!query.getColumn(10).isNull()) {
        c.within_one_pct_probability = number(10);
        if (!(*c.within_one_pct_probability >= 0 && *c.within_one_pct_probability <= 1))
          throw bad(10, "is not a probability in [0, 1]");
      }
      out.push_back(std::move(c));
    }
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({})", e.what()));
  }
  return out;
}

std::vector<PhaseStepLosses> ResultsStoreReader::phase_steps() const {
  std::vector<PhaseStepLosses> out;
  try {
    if (schema_version_ < 10 || !db_->tableExists("phase_steps")) return out;
    // The run's device as records() gives it: its board, else its board model.
    SQLite::Statement query(*db_,
                            "SELECT s.sweep, s.run_id, COALESCE(NULLIF(r.device_id, ''), r.board_model), s.phase, "
                            "s.step, s.loss FROM phase_steps s JOIN runs r ON r.sweep = s.sweep AND r.run_id = "
                            "s.run_id AND r.device_id = s.device_id ORDER BY s.sweep, s.run_id, s.device_id, s.phase, "
                            "s.step");
    while (query.executeStep()) {
      const std::string sweep = text_of(query.getColumn(0)), run_id = text_of(query.getColumn(1)),
                        device = text_of(query.getColumn(2));
      const SQLite::Column phase = query.getColumn(3), step = query.getColumn(4), loss = query.getColumn(5);
      const auto bad = [&](const std::string& what) {
        return InputError({file_},
                          fmt::format("phase_steps: run {}/{} phase {}: {}", sweep, run_id, text_of(phase), what));
      };
      if (!phase.isInteger() || phase.getInt64() < 1) throw bad("the phase is not a number from 1");
      if (out.empty() || out.back().sweep != sweep || out.back().run_id != run_id || out.back().device != device ||
          out.back().phase != phase.getInt64()) {
        out.push_back({sweep, run_id, device, static_cast<int>(phase.getInt64()), {}});
      }
      auto& losses = out.back().losses;
      if (!step.isInteger() || step.getInt64() != static_cast<std::int64_t>(losses.size()) + 1) {
        throw bad(fmt::format("step {} where step {} comes next", text_of(step), losses.size() + 1));
      }
      losses.push_back(loss.isInteger() || loss.isFloat() ? std::optional(loss.getDouble()) : std::nullopt);
    }
  } catch (const SQLite::Exception& e) {
    throw InputError({file_}, fmt::format("cannot be read as a results store ({})", e.what()));
  }
  return out;
}

}  // namespace jetchar::analysis
