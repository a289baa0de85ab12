// The results-store reader on real SQLite files created with the schema the store's writer
// executes (results/schema/store_schema.h), so a schema change the reader does not
// follow fails here.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/input_error.h"
#include "analysis/results_file.h"
#include "analysis/results_store_reader.h"
#include "results/schema/store_schema.h"
#include "tests/support/temp_dir.h"

namespace jetchar::analysis {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The schema version the store's writer stamps.
int writer_version() { return results::schema::kResultsStoreSchemaVersion; }

// The schema the store's writer executes (the meta table too, which the writer creates on its own).
std::string writer_schema() {
  return std::string(results::schema::kResultsStoreMetaTable) + ";\n" + results::schema::kResultsStoreSchema;
}

struct Store {
  explicit Store(const fs::path& file, int version = writer_version())
      : db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE) {
    db.exec("PRAGMA synchronous=OFF");  // test speed: no fsync per insert
    db.exec(writer_schema());
    db.exec(fmt::format("INSERT INTO meta VALUES ('schema_version', '{}')", version));
  }
  // A run with the flat columns the writer fills; blob content is irrelevant to the reader.
  void run(const std::string& id, const std::string& status, int cores, double gpu_mhz, int batch = 32) {
    db.exec(fmt::format(
        "INSERT INTO runs (sweep, run_id, repetition, status, reason, model, dataset, task, batch_size, accumulate, "
        "workers, "
        "cache, power_mode, cpu_cores, cpu_freq_mhz, gpu_freq_mhz, emc_freq_mhz, board_kind, board_model, simulated, "
        "medium, "
        "energy_source, started_utc, duration_s, result) "
        "VALUES ('s', '{}', 0, '{}', '', 'lenet5', 'synthetic:1x28x28?samples=64', 'CLASSIFICATION', {}, 1, 1, "
        "'WARM', 'custom', {}, 1728.0, {}, 3199.0, 'simulated', 'NVIDIA Jetson AGX Orin', 1, 'none (synthetic)', "
        "'VDD_IN', "
        "'2026-01-01T00:00:00Z', 1.5, x'00')",
        id, status, batch, cores, gpu_mhz));
  }
  void epoch(const std::string& id, int epoch, double e2e, std::optional<double> energy, double stall = 0.01) {
    db.exec(
        fmt::format("INSERT INTO epochs (sweep, run_id, epoch, stall_s, compute_s, e2e_s, samples, minibatches, loss, "
                    "accuracy, energy_j, "
                    "average_power_w) VALUES ('s', '{}', {}, {}, {}, {}, 64, 2, 2.3, 0.1, {}, {})",
                    id, epoch, stall, e2e - stall, e2e, energy ? fmt::format("{}", *energy) : "NULL",
                    energy ? fmt::format("{}", *energy / e2e) : "NULL"));
  }
  SQLite::Database db;
};

std::string reader_error_of(const fs::path& path) {
  try {
    load_results(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ResultsStoreReaderTest, ReadsTheSchemaVersionTheWriterStamps) {
  // Fails when experiments/ moves to a schema version this reader has not been checked against.
  EXPECT_GE(writer_version(), ResultsStoreReader::kOldestSchemaVersion);
  EXPECT_LE(writer_version(), ResultsStoreReader::kNewestSchemaVersion);
  jetchar::testing::TempDir dir;
  { Store store(dir.path() / "results.db"); }
  EXPECT_EQ(ResultsStoreReader(dir.path()).schema_version(), writer_version());
  EXPECT_TRUE(load_results(dir.path()).empty());
}

TEST(ResultsStoreReaderTest, MapsRunsAndEpochsLikeTheExport) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 0.5, 2.0);
    store.epoch("0000-r0", 1, 0.4, 1.6);
    store.run("0001-r0", "OOM", 12, 1300.5);
  }
  for (const fs::path& input : {dir.path(), dir.path() / "results.db"}) {
    auto records = load_results(input);
    ASSERT_EQ(records.size(), 3u) << input;
    const RunRecord& r = records[1];
    EXPECT_EQ(r.workload, "lenet5/synthetic");
    EXPECT_EQ(r.mode.name, "custom");
    EXPECT_EQ(r.mode.cpu_cores, 4);
    EXPECT_EQ(r.mode.cpu_freq_khz, 1728000);
    EXPECT_EQ(r.mode.gpu_freq_khz, 306000);
    EXPECT_EQ(r.mode.emc_freq_khz, 3199000);
    EXPECT_EQ(r.axes.at("batch"), "32");
    EXPECT_EQ(r.axes.at("workers"), "1");
    EXPECT_EQ(r.axes.at("cache"), "WARM");
    EXPECT_EQ(r.axes.at("medium"), "none (synthetic)");
    EXPECT_EQ(r.axes.count("sweep") + r.axes.count("simulated") + r.axes.count("energy_source"), 0u);
    EXPECT_EQ(r.device, "NVIDIA Jetson AGX Orin");
    EXPECT_EQ(r.run_id, "0000-r0");
    EXPECT_EQ(r.repetition, 0);
    EXPECT_EQ(r.epoch, 1);
    EXPECT_DOUBLE_EQ(*r.epoch_time_s, 0.4);
    EXPECT_DOUBLE_EQ(*r.epoch_energy_j, 1.6);
    EXPECT_DOUBLE_EQ(*r.avg_power_w, 4.0);
    EXPECT_DOUBLE_EQ(*r.stall_s, 0.01);
    EXPECT_THAT(r.source, HasSubstr("run s/0000-r0 epoch 1"));
    // The OOM run has no epochs: one record, no time, not OK.
    EXPECT_EQ(records[2].status, RunStatus::kOom);
    EXPECT_FALSE(records[2].epoch);
    EXPECT_FALSE(records[2].epoch_time_s);
  }
  auto points = aggregate(load_results(dir.path()));
  ASSERT_EQ(points.size(), 1u);
  EXPECT_DOUBLE_EQ(points[0].time_s, 0.4);  // epoch 0 (cold) left out
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> store_names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Analysing never writes: a WAL store (as the writer keeps it) stays byte for byte as it was, and
// no -wal or -shm is left beside it (a plain read-only connection leaves both).
TEST(ResultsStoreReaderTest, ReadingLeavesTheStoreAndItsDirectoryAsTheyWere) {
  jetchar::testing::TempDir dir;
  const fs::path file = dir.path() / "results.db";
  {
    Store store(file);
    store.db.exec("PRAGMA journal_mode=WAL");
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 0.5, 2.0);
    store.epoch("0000-r0", 1, 0.4, 1.6);
  }
  ASSERT_EQ(store_names_in(dir.path()), std::vector<std::string>{"results.db"});
  const std::string before = bytes_of(file);
  {
    ResultsStoreReader reader(dir.path());
    EXPECT_EQ(reader.records().size(), 2u);
    EXPECT_TRUE(reader.power_trace());
  }
  EXPECT_EQ(load_results(file).size(), 2u);
  EXPECT_EQ(bytes_of(file), before);
  EXPECT_EQ(store_names_in(dir.path()), std::vector<std::string>{"results.db"});
}

// While a sweep has the store open its last runs may be in the -wal file only: they are read.
TEST(ResultsStoreReaderTest, ReadsRunsAWriterHasNotCheckpointed) {
  jetchar::testing::TempDir dir;
  const fs::path file = dir.path() / "results.db";
  Store store(file);
  store.db.exec("PRAGMA journal_mode=WAL");
  store.run("0000-r0", "OK", 4, 306.0);
  store.epoch("0000-r0", 0, 0.5, 2.0);
  ASSERT_TRUE(fs::exists(file.string() + "-wal"));
  EXPECT_EQ(load_results(file).size(), 1u);
  store.run("0001-r0", "OK", 12, 306.0);
  store.epoch("0001-r0", 0, 0.5, 2.0);
  EXPECT_EQ(load_results(file).size(), 2u);
}

TEST(ResultsStoreReaderTest, AStoreIsFoundByItsHeaderWhateverItsName) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "copy.sqlite");
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 0.5, 2.0);
  }
  EXPECT_TRUE(is_results_store(dir.path() / "copy.sqlite"));
  EXPECT_FALSE(is_results_store(dir.path()));  // no results.db in it
  EXPECT_EQ(load_results(dir.path() / "copy.sqlite").size(), 1u);
  auto csv = dir.write("runs.csv", "workload,epoch_time_s\nw,1\n");
  EXPECT_FALSE(is_results_store(csv));
}

TEST(ResultsStoreReaderTest, ErrorsNameTheFileAndWhatIsWrong) {
  jetchar::testing::TempDir dir;
  fs::create_directories(dir.path() / "empty");
  EXPECT_THAT(reader_error_of(dir.path() / "empty"), HasSubstr("empty: is a directory without results.db"));

  const int newer = writer_version() + 1;
  { Store store(dir.path() / "newer.db", newer); }
  EXPECT_THAT(
      reader_error_of(dir.path() / "newer.db"),
      HasSubstr(fmt::format("newer.db: results store schema version '{}'; this jetchar reads versions 1 to", newer)));

  {
    SQLite::Database db((dir.path() / "other.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE things (a INTEGER)");
  }
  EXPECT_THAT(reader_error_of(dir.path() / "other.db"),
              HasSubstr("other.db: has no table 'meta': not a jetchar results store"));

  {
    Store store(dir.path() / "no-epochs.db");
    store.db.exec("DROP TABLE epochs");
  }
  EXPECT_THAT(reader_error_of(dir.path() / "no-epochs.db"), HasSubstr("but no table 'epochs'"));

  {
    Store store(dir.path() / "old-runs.db");
    store.db.exec("ALTER TABLE runs DROP COLUMN medium");
  }
  EXPECT_THAT(reader_error_of(dir.path() / "old-runs.db"), HasSubstr("table 'runs' lacks column(s) medium"));

  {
    Store store(dir.path() / "bad-status.db");
    store.run("0003-r1", "MAYBE", 4, 306.0);
  }
  EXPECT_THAT(reader_error_of(dir.path() / "bad-status.db"),
              HasSubstr("bad-status.db: run s/0003-r1: column 'status': 'MAYBE' is not a run status"));

  {
    Store store(dir.path() / "negative.db");
    store.run("0004-r0", "OK", 4, 306.0);
    store.epoch("0004-r0", 0, -1.0, 2.0, 0.0);
  }
  EXPECT_THAT(reader_error_of(dir.path() / "negative.db"), HasSubstr("run s/0004-r0: column 'e2e_s': -1 is negative"));

  // A results.db that is not SQLite at all (e.g. truncated by a full disk).
  fs::create_directories(dir.path() / "broken");
  dir.write("broken/results.db", "not a database");
  EXPECT_THAT(reader_error_of(dir.path() / "broken"), HasSubstr("results.db: is not an SQLite database"));
}

TEST(ResultsStoreReaderTest, PowerTraceFromStoredSamplesWithPhaseMarkers) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 1.04, 5.0);
    store.epoch("0000-r0", 1, 1.0, 5.0);
    // 10 Hz from t = 0.2 s: epoch 1 is [1.24, 2.24] on the run's clock, its first sample 1.3 s.
    for (int i = 0; i < 30; ++i) {
      const double t = 0.2 + 0.1 * i;
      store.db.exec(fmt::format(
          "INSERT INTO power_samples (sweep, run_id, t_s, channel, power_w) VALUES ('s', '0000-r0', {}, 'VDD_IN', {})",
          t, 4.0 + i));
      store.db.exec(
          fmt::format("INSERT INTO power_samples (sweep, run_id, t_s, channel, power_w) VALUES ('s', '0000-r0', {}, "
                      "'VDD_CPU_GPU_CV', 1.0)",
                      t));
    }
    for (int i = 0; i < 4; ++i) {
      store.db.exec(
          fmt::format("INSERT INTO minibatches (sweep, run_id, epoch, idx, stall_s, compute_s, energy_j, loss) VALUES "
                      "('s', '0000-r0', 1, {}, 0.05, 0.2, NULL, NULL)",
                      i));
    }
  }
  auto trace = ResultsStoreReader(dir.path()).power_trace();
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->run, "s/0000-r0");
  EXPECT_THAT(trace->source, HasSubstr("stored power samples (VDD_IN), epoch 1"));
  std::vector<double> powers;
  std::vector<std::string> markers;
  for (const auto& s : trace->samples) {
    if (s.marker) markers.push_back(*s.marker);
    else powers.push_back(s.power_w);
  }
  ASSERT_FALSE(powers.empty());
  EXPECT_NEAR(powers.front(), 15.0, 1e-9);  // t = 1.3 s: the 12th VDD_IN sample, not the rail sum
  EXPECT_GE(powers.back(), 23.0);           // t = 2.1 s or 2.2 s (rounding decides the edge)
  EXPECT_LE(powers.back(), 24.0);
  EXPECT_GE(powers.size(), 10u);
  // The epoch's start is marked at t = 0, before its first fetch, not on its first sample.
  EXPECT_EQ(markers.front(), "epoch 1");
  EXPECT_EQ(trace->samples.front().t_s, 0.0);
  EXPECT_THAT(markers, ::testing::Contains("fetch 0"));
  EXPECT_THAT(markers, ::testing::Contains("compute 3"));
  for (std::size_t i = 1; i < trace->samples.size(); ++i) EXPECT_LE(trace->samples[i - 1].t_s, trace->samples[i].t_s);
  for (const auto& s : trace->samples) {
    if (s.marker && *s.marker == "compute 0") {
      EXPECT_NEAR(s.t_s, 0.05, 1e-9);
    }
  }
}

// Schema 3 stores when each epoch began: the trace's window is that, not the estimate from the
// epoch times; a version-2 store (no epochs.start_s) still gets the estimate.
TEST(ResultsStoreReaderTest, PowerTraceUsesTheStoredEpochStart) {
  jetchar::testing::TempDir dir;
  auto write = [](const fs::path& file, int version) {
    Store store(file, version);
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 1.0, 5.0);
    store.epoch("0000-r0", 1, 0.5, 5.0);
    for (int i = 0; i < 30; ++i) {  // 10 Hz from t = 0: VDD_IN = 4 + 10 t
      store.db.exec(fmt::format(
          "INSERT INTO power_samples (sweep, run_id, t_s, channel, power_w) VALUES ('s', '0000-r0', {}, 'VDD_IN', {})",
          0.1 * i, 4.0 + i));
    }
    if (version >= 3) {
      store.db.exec("UPDATE epochs SET start_s = 1.45 WHERE epoch = 1");
    } else {
      store.db.exec("ALTER TABLE epochs DROP COLUMN start_s");
    }
  };
  auto first_power = [](const StoredPowerTrace& trace) {
    for (const auto& s : trace.samples) {
      if (!s.marker) return s.power_w;
    }
    return std::nan("");
  };
  write(dir.path() / "v3.db", 3);
  const auto stored = ResultsStoreReader(dir.path() / "v3.db").power_trace();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->source, "stored power samples (VDD_IN), epoch 1");
  EXPECT_NEAR(first_power(*stored), 19.0, 1e-9);  // epoch 1 is [1.45, 1.95]: first sample t = 1.5

  write(dir.path() / "v2.db", 2);
  const auto estimated = ResultsStoreReader(dir.path() / "v2.db").power_trace();
  ASSERT_TRUE(estimated);
  EXPECT_THAT(estimated->source, HasSubstr("its start is estimated from the epoch times"));
  EXPECT_NEAR(first_power(*estimated), 14.0, 1e-9);  // first sample 0 + epoch 0's 1.0 s: t = 1.0
}

// The trace's power is the run's own board total (runs.energy_source), so AGX Orin's sub-rail,
// which another rail already feeds, is not added again; a sample time that lacks one of the
// total's rails (a failed read) has no total.
// Node 0 of a data-parallel run across machines stores the sum over every board as its energy
// source and its own board's samples: its trace is its board's total all the same.
TEST(ResultsStoreReaderTest, PowerTraceSumsTheRailsOfTheRunsTotal) {
  for (const std::string prefix : {"", "sum over 2 boards of "}) {
    jetchar::testing::TempDir dir;
    {
      Store store(dir.path() / "results.db");
      store.run("0000-r0", "OK", 4, 306.0);
      store.db.exec(fmt::format(
          "UPDATE runs SET energy_source = '{}sum of module rails (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0)'", prefix));
      store.epoch("0000-r0", 0, 1.0, 5.0);
      store.db.exec("UPDATE epochs SET start_s = 0");
      for (int i = 0; i <= 10; ++i) {
        const double t = 0.1 * i;
        for (const auto& [rail, watts] : std::vector<std::pair<std::string, double>>{
                 {"VDD_GPU_SOC", 3.0}, {"VDD_CPU_CV", 2.0}, {"VIN_SYS_5V0", 1.0 + i}, {"VDDQ_VDD2_1V8AO", 0.5}}) {
          if (rail == "VDD_CPU_CV" && i == 5) continue;
          store.db.exec(fmt::format(
              "INSERT INTO power_samples (sweep, run_id, t_s, channel, power_w) VALUES ('s', '0000-r0', {}, '{}', {})",
              t, rail, watts));
        }
      }
    }
    const auto trace = ResultsStoreReader(dir.path()).power_trace();
    ASSERT_TRUE(trace) << prefix;
    EXPECT_EQ(trace->source, "stored power samples (VDD_GPU_SOC + VDD_CPU_CV + VIN_SYS_5V0), epoch 0") << prefix;
    std::vector<double> powers;
    for (const auto& s : trace->samples) {
      if (!s.marker) powers.push_back(s.power_w);
    }
    EXPECT_EQ(powers, (std::vector<double>{6, 7, 8, 9, 10, 12, 13, 14, 15, 16})) << prefix;
  }
}

TEST(ResultsStoreReaderTest, PowerTraceFallsBackToMinibatchEnergyThenEpochAverages) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "FAILED", 4, 306.0);  // not OK: never plotted
    store.epoch("0000-r0", 0, 1.0, 50.0);
    store.run("0001-r0", "OK", 4, 306.0);
    store.epoch("0001-r0", 0, 1.0, 5.0);
    store.epoch("0001-r0", 1, 2.0, 6.0);
  }
  auto trace = ResultsStoreReader(dir.path()).power_trace();
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->run, "s/0001-r0");
  EXPECT_THAT(trace->source, HasSubstr("average power of each epoch"));
  ASSERT_EQ(trace->samples.size(), 4u);
  EXPECT_DOUBLE_EQ(trace->samples[0].power_w, 5.0);
  EXPECT_EQ(trace->samples[0].marker, "epoch 0");
  EXPECT_DOUBLE_EQ(trace->samples[2].t_s, 1.0);
  EXPECT_DOUBLE_EQ(trace->samples[3].power_w, 3.0);

  {
    SQLite::Database db((dir.path() / "results.db").string(), SQLite::OPEN_READWRITE);
    db.exec(
        "INSERT INTO minibatches (sweep, run_id, epoch, idx, stall_s, compute_s, energy_j, loss) VALUES ('s', "
        "'0001-r0', 1, 0, 0.1, 0.4, 2.0, NULL)");
    db.exec(
        "INSERT INTO minibatches (sweep, run_id, epoch, idx, stall_s, compute_s, energy_j, loss) VALUES ('s', "
        "'0001-r0', 1, 1, 0.1, 0.9, 3.0, NULL)");
  }
  trace = ResultsStoreReader(dir.path()).power_trace();
  ASSERT_TRUE(trace);
  EXPECT_THAT(trace->source, HasSubstr("average power of each minibatch"));
  std::vector<double> powers;
  for (const auto& s : trace->samples) {
    if (!s.marker) powers.push_back(s.power_w);  // markers are points of their own
  }
  EXPECT_THAT(powers, ::testing::ElementsAre(4.0, 4.0, 3.0, 3.0));
  const auto epoch =
      std::find_if(trace->samples.begin(), trace->samples.end(), [](const auto& s) { return s.marker == "epoch 1"; });
  ASSERT_NE(epoch, trace->samples.end());
  EXPECT_EQ(epoch->t_s, 0.0);
}

TEST(ResultsStoreReaderTest, NoPowerAnywhereGivesNoTrace) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 306.0);
    store.epoch("0000-r0", 0, 1.0, std::nullopt);
  }
  EXPECT_FALSE(ResultsStoreReader(dir.path()).power_trace());
  EXPECT_EQ(load_results(dir.path()).size(), 1u);
}

// An epoch's external meters (table epoch_meters) reach the record as the export's meter columns
// do: the first meter the run configured, its energy and power as metrics; the board's energy
// source names where the epoch's own energy comes from.
TEST(ResultsStoreReaderTest, TheFirstMetersEnergyAndTheBoardsSourceAreRead) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 612);
    store.epoch("0000-r0", 0, 2.0, 10.0);
    store.epoch("0000-r0", 1, 2.0, 9.0);
    store.run("0001-r0", "OK", 8, 612);
    store.epoch("0001-r0", 0, 1.0, 8.0);
    // Inserted in the order the run configured its meters: the second is not the epoch's.
    store.db.exec(
        "INSERT INTO epoch_meters (sweep, run_id, epoch, meter, energy_j, average_power_w, readings, gap_s) VALUES "
        "('s', '0000-r0', 1, 'yokogawa:/dev/ttyUSB1', 14.5, 7.25, 20, 0.1), "
        "('s', '0000-r0', 1, 'hioki:/dev/ttyUSB0', 99, 49.5, 20, 0.1), "
        "('s', '0000-r0', 0, 'yokogawa:/dev/ttyUSB1', NULL, NULL, 0, 2.0)");
  }
  const auto records = load_results(dir.path());
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].energy_source, "VDD_IN");
  EXPECT_EQ(records[0].meter, "yokogawa:/dev/ttyUSB1");
  EXPECT_EQ(records[0].metrics.count("meter_energy_j"), 0u) << "the meter did not cover epoch 0";
  EXPECT_EQ(records[1].meter, "yokogawa:/dev/ttyUSB1");
  EXPECT_DOUBLE_EQ(records[1].metrics.at("meter_energy_j"), 14.5);
  EXPECT_DOUBLE_EQ(records[1].metrics.at("meter_avg_power_w"), 7.25);
  EXPECT_FALSE(records[2].meter);
  EXPECT_EQ(records[2].metrics.count("meter_energy_j"), 0u);
  for (const auto& record : records) EXPECT_EQ(record.axes.count("meter") + record.axes.count("energy_source"), 0u);
}

}  // namespace
}  // namespace jetchar::analysis

namespace jetchar::analysis {
namespace {

// A merged fleet store: runs of two boards of one kind and one of another. The device is the
// physical board (runs.device_id), and a store of several board models gives every record the
// axis "board", so fronts and variability stay within a kind.
TEST(ResultsStoreReaderTest, AFleetStoreNamesEachBoardAndItsKind) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    const std::vector<std::tuple<std::string, std::string, std::string>> runs = {
        {"0000-r0", "p3701-0005/111", "NVIDIA Jetson AGX Orin"},
        {"0000-r1", "p3701-0005/222", "NVIDIA Jetson AGX Orin"},
        {"0000-r2", "p3767-0005/333", "NVIDIA Jetson Orin Nano"}};
    for (const auto& [id, device, model] : runs) {
      store.run(id, "OK", 4, 612);
      store.db.exec(
          fmt::format("UPDATE runs SET device_id = '{}', board_model = '{}' WHERE run_id = '{}'", device, model, id));
      store.epoch(id, 1, 2.0, 10.0);
    }
  }
  const auto records = load_results(dir.path());
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].device, "p3701-0005/111");
  EXPECT_EQ(records[1].device, "p3701-0005/222");
  EXPECT_EQ(records[2].device, "p3767-0005/333");
  EXPECT_EQ(records[0].axes.at("board"), "NVIDIA Jetson AGX Orin");
  EXPECT_EQ(records[2].axes.at("board"), "NVIDIA Jetson Orin Nano");
}

// Schema 5: one run id measured on two boards is two runs, each joined with its own epochs (a
// join on (sweep, run_id) alone would cross them: four records, two of them wrong).
TEST(ResultsStoreReaderTest, OneRunIdOnTwoBoardsIsTwoRunsWithTheirOwnEpochs) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    for (const auto& [device, e2e] : {std::pair{"p3701-0005/111", 2.0}, std::pair{"p3701-0005/222", 3.0}}) {
      store.run("0000-r0", "OK", 4, 612);
      store.db.exec(fmt::format("UPDATE runs SET device_id = '{}' WHERE device_id = ''", device));
      store.epoch("0000-r0", 1, e2e, 10.0);
      store.db.exec(fmt::format("UPDATE epochs SET device_id = '{}' WHERE device_id = ''", device));
    }
  }
  const auto records = load_results(dir.path());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].device, "p3701-0005/111");
  EXPECT_DOUBLE_EQ(*records[0].epoch_time_s, 2.0);
  EXPECT_EQ(records[1].device, "p3701-0005/222");
  EXPECT_DOUBLE_EQ(*records[1].epoch_time_s, 3.0);
  EXPECT_THAT(records[1].source, HasSubstr("run s/0000-r0 on p3701-0005/222"));
}

// Each phase's step losses, by run and board, with the device records() gives the run's epochs;
// a diverged step is a gap; a row out of step order names the run and phase.
TEST(ResultsStoreReaderTest, PhaseStepLossesAreReadPerRunBoardAndPhase) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 612);
    store.db.exec("UPDATE runs SET device_id = 'p3701-0005/111'");
    store.run("0000-r0", "OK", 4, 612);  // the same run id on a board that recorded no id
    store.db.exec(
        "INSERT INTO phase_steps VALUES ('s', '0000-r0', 'p3701-0005/111', 1, 1, 9.5), ('s', '0000-r0', "
        "'p3701-0005/111', 1, 2, 9.0), ('s', '0000-r0', 'p3701-0005/111', 2, 1, NULL), ('s', '0000-r0', '', 1, 1, 8)");
  }
  const auto steps = ResultsStoreReader(dir.path()).phase_steps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].device, "NVIDIA Jetson AGX Orin");  // no board recorded: the model, as records() names it
  EXPECT_EQ(steps[1].device, "p3701-0005/111");
  EXPECT_EQ(steps[1].phase, 1);
  ASSERT_EQ(steps[1].losses.size(), 2u);
  EXPECT_DOUBLE_EQ(*steps[1].losses[1], 9.0);
  EXPECT_EQ(steps[2].phase, 2);
  EXPECT_FALSE(steps[2].losses[0].has_value());
  {
    SQLite::Database db((dir.path() / "results.db").string(), SQLite::OPEN_READWRITE);
    db.exec("INSERT INTO phase_steps VALUES ('s', '0000-r0', 'p3701-0005/111', 2, 3, 1)");
  }
  try {
    ResultsStoreReader(dir.path()).phase_steps();
    ADD_FAILURE() << "a missing step was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("phase_steps: run s/0000-r0 phase 2: step 3 where step 2 comes next"));
  }
}

TEST(ResultsStoreReaderTest, OneKindGetsNoBoardAxisAndAStoreWithoutDeviceIdsNamesTheModel) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 612);
    store.epoch("0000-r0", 1, 2.0, 10.0);
  }
  const auto records = load_results(dir.path());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].device, "NVIDIA Jetson AGX Orin");
  EXPECT_EQ(records[0].axes.count("board"), 0u);
}

// Schema 6: the dev scores of each epoch and the run's time and energy to target become metrics
// under the export's names, never axes (each epoch's F1 differs: as an axis it would split one
// configuration into one per epoch). A version 5 store has none and reads as before.
TEST(ResultsStoreReaderTest, TaskMetricsAndTimeToTargetAreMetricsNotAxes) {
  jetchar::testing::TempDir dir;
  {
    Store store(dir.path() / "results.db");
    store.run("0000-r0", "OK", 4, 612);
    store.epoch("0000-r0", 0, 2.0, 10.0);
    store.epoch("0000-r0", 1, 2.0, 10.0);
    store.db.exec(
        "UPDATE epochs SET eval_entity_f1 = 0.5 + 0.4 * epoch, eval_loss = 0.7, eval_squad_f1 = NULL, "
        "eval_exact_match = 0.25 WHERE run_id = '0000-r0'");
    store.db.exec(
        "UPDATE runs SET target_f1 = 0.85, target_epoch = 1, time_to_target_s = 4, energy_to_target_j = 20 "
        "WHERE run_id = '0000-r0'");
  }
  const auto records = load_results(dir.path());
  ASSERT_EQ(records.size(), 2u);
  const auto& warm = records[1];
  EXPECT_DOUBLE_EQ(warm.metrics.at("eval_entity_f1_ratio"), 0.9);
  EXPECT_DOUBLE_EQ(warm.metrics.at("eval_exact_match_ratio"), 0.25);
  EXPECT_EQ(warm.metrics.count("eval_squad_f1_ratio"), 0u);  // NULL: not measured
  EXPECT_DOUBLE_EQ(warm.metrics.at("target_f1_ratio"), 0.85);
  EXPECT_DOUBLE_EQ(warm.metrics.at("time_to_target_s"), 4);
  EXPECT_DOUBLE_EQ(warm.metrics.at("energy_to_target_j"), 20);
  EXPECT_EQ(warm.metrics.count("wall_to_target_s"), 0u);
  EXPECT_DOUBLE_EQ(records[0].metrics.at("eval_entity_f1_ratio"), 0.5);
  for (const auto& record : records) {
    for (const auto& [axis, value] : record.axes) {
      EXPECT_FALSE(axis.starts_with("eval_") || axis.starts_with("target_")) << axis << "=" << value;
    }
  }

  jetchar::testing::TempDir old_dir;
  {
    Store store(old_dir.path() / "results.db", 5);
    store.run("0000-r0", "OK", 4, 612);
    store.epoch("0000-r0", 1, 2.0, 10.0);
  }
  const auto old_records = load_results(old_dir.path());
  ASSERT_EQ(old_records.size(), 1u);
  EXPECT_EQ(old_records[0].metrics.count("eval_entity_f1_ratio"), 0u);
}

}  // namespace
}  // namespace jetchar::analysis
