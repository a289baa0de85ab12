#include "results/store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

#include "analysis/results_store_reader.h"
#include "results/schema/store_schema.h"
#include "tests/support/small_mount.h"
#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

proto::RunResult make_run(const std::string& run_id, double e2e_s) {
  proto::RunResult result;
  result.set_sweep("s1");
  result.set_run_id(run_id);
  result.set_status(proto::OK);
  result.mutable_context()->set_power_mode("MODE_30W");
  auto* workload = result.mutable_resolved()->mutable_workload();
  workload->set_model("lenet5");
  workload->set_batch_size(16);
  result.mutable_resolved()->mutable_loader()->set_workers(2);
  result.mutable_resolved()->mutable_device()->set_gpu_freq_mhz(624.75);
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto* e = result.add_epochs();
    e->set_epoch(epoch);
    e->set_e2e_s(e2e_s + epoch);
    e->set_stall_s(0.5);
    if (epoch > 0) e->set_energy_j(100.0 * epoch);
  }
  auto* m = result.add_minibatches();
  m->set_epoch(0);
  m->set_index(0);
  m->set_compute_s(0.01);
  return result;
}

TEST(ResultsStoreTest, RoundTripsARun) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  store.save(make_run("0000-r0", 10), {{0.0, "VDD_IN", 5.5}, {0.01, "VDD_IN", 5.6}});
  ASSERT_TRUE(store.contains("s1", "0000-r0"));
  EXPECT_FALSE(store.contains("s1", "0001-r0"));
  const auto loaded = store.load("s1", "0000-r0");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->epochs_size(), 3);
  EXPECT_DOUBLE_EQ(loaded->resolved().device().gpu_freq_mhz(), 624.75);
  EXPECT_FALSE(loaded->epochs(0).has_energy_j());  // absent stays absent
  const auto samples = store.power_samples("s1", "0000-r0");
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_DOUBLE_EQ(samples[1].power_w, 5.6);
}

// A data-parallel run's ranks become rows of rank_epochs, replaced with the run, and analysis reads
// the recording rank's all-reduce figures beside each epoch.
TEST(ResultsStoreTest, EveryRankOfADataParallelRunIsARowAndAnalysisSeesItsCommunication) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  auto run = make_run("0000-r0", 10);
  auto* world = run.mutable_distributed();
  world->set_world_size(2);
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int rank = 0; rank < 2; ++rank) {
      auto* r = world->add_ranks();
      r->set_epoch(epoch);
      r->set_rank(rank);
      r->set_samples(500);
      r->set_allreduce_s(0.25 + rank);
      r->set_exposed_communication_s(0.125 + rank);
      r->set_allreduce_bytes(1000);
    }
  }
  {
    ResultsStore store(file);
    store.save(run);
    store.save(run);  // again: replaced, not doubled
  }
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM rank_epochs").getInt(), 6);
    EXPECT_EQ(db.execAndGet("SELECT SUM(allreduce_bytes) FROM rank_epochs WHERE rank = 1").getInt(), 3000);
  }
  const auto records = analysis::ResultsStoreReader(file).records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_DOUBLE_EQ(records[1].metrics.at("exposed_communication_s"), 0.125) << "rank 0's, which recorded the run";
  EXPECT_DOUBLE_EQ(records[1].metrics.at("allreduce_s"), 0.25);
}

TEST(ResultsStoreTest, APhasedRunKeepsEachPhaseAndEachEpochsPhase) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  auto run = make_run("0000-r0", 10);
  for (int epoch = 0; epoch < 3; ++epoch) run.mutable_epochs(epoch)->set_phase(epoch < 2 ? 1 : 2);
  for (const std::uint32_t phase : {1U, 2U}) {
    auto* p = run.add_phases();
    p->set_phase(phase);
    p->set_sequence_length(phase == 1 ? 128 : 512);
    p->set_batch_size(phase == 1 ? 64 : 16);
    p->set_accumulate(phase);
    p->set_learning_rate(1e-3);
    p->set_steps(100);
    p->set_samples(6400);
    p->set_time_s(21);
    p->set_sequences_per_s(6400 / 21.0);
    p->set_final_loss(phase == 1 ? 7.5 : 6.25);
    if (phase == 1) p->set_energy_j(100);
    for (const double loss : {9.0, 8.5, phase == 1 ? 8.0 : std::nan("")}) p->add_step_loss(loss);
  }
  {
    ResultsStore store(file);
    store.save(run);
    store.save(run);  // again: replaced, not doubled
    const auto loaded = store.load("s1", "0000-r0");
    ASSERT_TRUE(loaded);
    ASSERT_EQ(loaded->phases_size(), 2);
    EXPECT_EQ(loaded->phases(1).sequence_length(), 512u);
  }
  SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM run_phases").getInt(), 2);
  EXPECT_EQ(db.execAndGet("SELECT sequence_length FROM run_phases WHERE phase = 2").getInt(), 512);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT final_loss FROM run_phases WHERE phase = 2").getDouble(), 6.25);
  EXPECT_TRUE(db.execAndGet("SELECT energy_j FROM run_phases WHERE phase = 2").isNull());
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM epochs WHERE phase = 1").getInt(), 2);
  EXPECT_EQ(db.execAndGet("SELECT phase FROM epochs WHERE epoch = 2").getInt(), 2);
  // Each step's loss, numbered from 1 within its phase; a step that diverged is NULL, not lost.
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM phase_steps").getInt(), 6);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT loss FROM phase_steps WHERE phase = 1 AND step = 3").getDouble(), 8.0);
  EXPECT_TRUE(db.execAndGet("SELECT loss FROM phase_steps WHERE phase = 2 AND step = 3").isNull());
}

// The list's figures are those of the analysis: medians over the warm epochs (after epoch 0).
TEST(ResultsStoreTest, SummariesUseMediansOverWarmEpochs) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  store.save(make_run("0000-r0", 10));  // epochs of 10, 11 and 12 s: warm 11 and 12
  auto cold = make_run("0001-r0", 10);
  cold.mutable_epochs()->DeleteSubrange(1, 2);  // epoch 0 alone
  store.save(cold);
  const auto list = store.list();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].model, "lenet5");
  EXPECT_EQ(list[0].status, "OK");
  EXPECT_DOUBLE_EQ(*list[0].median_epoch_s, 11.5);
  EXPECT_DOUBLE_EQ(*list[0].median_energy_j, 150);
  EXPECT_FALSE(list[0].cold_only);
  EXPECT_DOUBLE_EQ(*list[1].median_epoch_s, 10);
  EXPECT_FALSE(list[1].median_energy_j);
  EXPECT_TRUE(list[1].cold_only);
}

TEST(ResultsStoreTest, SavingAgainReplacesTheRecord) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  store.save(make_run("0000-r0", 10));
  store.save(make_run("0000-r0", 20));
  const auto all = store.load_all("s1");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_DOUBLE_EQ(all[0].epochs(0).e2e_s(), 20);
  EXPECT_EQ(store.sweeps(), std::vector<std::string>{"s1"});
}

// The key is (sweep, run_id, board): the same run of another board is another record, with its
// own epochs and samples; saving again on one board replaces only that board's record.
TEST(ResultsStoreTest, OneRunOnTwoBoardsIsTwoRecords) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  auto on_b1 = make_run("0000-r0", 10);
  on_b1.mutable_context()->set_device_id("orin/b1");
  auto on_b2 = make_run("0000-r0", 20);
  on_b2.mutable_context()->set_device_id("orin/b2");
  store.save(on_b1, {{0.0, "VDD_IN", 5.0}});
  store.save(on_b2, {{0.0, "VDD_IN", 6.0}, {0.1, "VDD_IN", 6.5}});
  on_b1.mutable_epochs(0)->set_e2e_s(11);
  store.save(on_b1, {{0.0, "VDD_IN", 5.0}});
  ASSERT_EQ(store.load_all("s1").size(), 2u);
  EXPECT_EQ(store.devices_of("s1", "0000-r0"), (std::vector<std::string>{"orin/b1", "orin/b2"}));
  EXPECT_TRUE(store.contains("s1", "0000-r0", "orin/b2"));
  EXPECT_FALSE(store.contains("s1", "0000-r0", "orin/b3"));
  EXPECT_DOUBLE_EQ(store.load("s1", "0000-r0", "orin/b1")->epochs(0).e2e_s(), 11);
  EXPECT_DOUBLE_EQ(store.load("s1", "0000-r0", "orin/b2")->epochs(0).e2e_s(), 20);
  EXPECT_EQ(store.power_samples("s1", "0000-r0", "orin/b2").size(), 2u);
  EXPECT_EQ(store.power_samples("s1", "0000-r0", "orin/b1").size(), 1u);
  try {
    store.load("s1", "0000-r0");
    ADD_FAILURE() << "a run of two boards was loaded without naming the board";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("orin/b1, orin/b2"), std::string::npos) << message;
  }
  SQLite::Database db((dir.path() / "results.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM epochs WHERE run_id = '0000-r0'").getInt(), 6);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM minibatches WHERE device_id = 'orin/b1'").getInt(), 1);
}

TEST(ResultsStoreTest, PersistsAcrossReopen) {
  testing::TempDir dir;
  { ResultsStore(dir.path() / "results.db").save(make_run("0000-r0", 10)); }
  EXPECT_TRUE(ResultsStore(dir.path() / "results.db").contains("s1", "0000-r0"));
}

TEST(ResultsStoreTest, NotAStoreIsAClearError) {
  testing::TempDir dir;
  const auto file = dir.write("results.db", "this is not an SQLite database, just text that is long enough......");
  try {
    ResultsStore store(file);
    FAIL();
  } catch (const std::invalid_argument& e) {  // bad input, not a failure of the disk
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

std::string bytes_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Reading never writes: the store stays byte for byte as it was, and no -wal, -shm or -journal
// file is left beside it (a plain read-only connection to a WAL store leaves both).
TEST(ResultsStoreTest, ReadOnlyLeavesTheStoreAndItsDirectoryAsTheyWere) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  { ResultsStore(file).save(make_run("0000-r0", 10), {{0.0, "VDD_IN", 5.5}}); }
  const std::string before = bytes_of(file);
  ASSERT_EQ(files_in(dir.path()), std::vector<std::string>{"results.db"});
  {
    const ResultsStore store(file, ResultsStore::Access::kReadOnly);
    EXPECT_EQ(store.list().size(), 1u);
    EXPECT_TRUE(store.load("s1", "0000-r0"));
    EXPECT_EQ(store.power_samples("s1", "0000-r0").size(), 1u);
    EXPECT_EQ(store.sweeps(), std::vector<std::string>{"s1"});
    EXPECT_THROW(const_cast<ResultsStore&>(store).save(make_run("0001-r0", 1)), std::logic_error);
  }
  EXPECT_EQ(bytes_of(file), before);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"results.db"});
}

// Not a store: absent, empty (which a read-write open would turn into an empty store) or not
// SQLite. Each is bad input naming the file, and the file stays as it was.
TEST(ResultsStoreTest, ReadOnlyRefusesWhatIsNotAStoreAndChangesNothing) {
  testing::TempDir dir;
  const auto missing = dir.path() / "missing.db";
  EXPECT_THROW((ResultsStore{missing, ResultsStore::Access::kReadOnly}), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(missing));
  const auto empty = dir.write("empty.db", "");
  try {
    ResultsStore store(empty, ResultsStore::Access::kReadOnly);
    FAIL() << "an empty file was read as a store";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("empty.db is empty (0 bytes)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  const std::string garbage = std::string("SQLite format 3\0", 16) + std::string(4000, 'x');
  const auto damaged = dir.write("damaged.db", garbage);
  EXPECT_THROW((ResultsStore{damaged, ResultsStore::Access::kReadOnly}), std::invalid_argument);
  EXPECT_EQ(bytes_of(damaged), garbage);
  EXPECT_EQ(files_in(dir.path()), (std::vector<std::string>{"damaged.db", "empty.db"}));
}

// While a sweep has the store open, its runs may still be in the -wal file: a reader sees them.
TEST(ResultsStoreTest, ReadOnlySeesRunsAWriterHasNotCheckpointed) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  ResultsStore writer(file);
  writer.save(make_run("0000-r0", 10));
  ASSERT_TRUE(std::filesystem::exists(file.string() + "-wal"));
  {
    const ResultsStore reader(file, ResultsStore::Access::kReadOnly);
    EXPECT_TRUE(reader.contains("s1", "0000-r0"));
  }
  writer.save(make_run("0001-r0", 10));
  EXPECT_EQ(ResultsStore(file, ResultsStore::Access::kReadOnly).list().size(), 2u);
}

// Each table's columns as SQLite reports them (name, type, NOT NULL, default, place in the key),
// and the indexes, in a form two stores can be compared by.
std::vector<std::string> layout_of(SQLite::Database& db) {
  std::vector<std::string> layout;
  for (const char* table : schema::kResultsStoreTables) {
    if (!db.tableExists(table)) {
      layout.push_back(std::string(table) + ": absent");
      continue;
    }
    SQLite::Statement info(db, std::string("PRAGMA table_info(") + table + ")");
    while (info.executeStep()) {
      layout.push_back(std::string(table) + "." + info.getColumn(1).getString() + " " + info.getColumn(2).getString() +
                       (info.getColumn(3).getInt() ? " NOT NULL" : "") + " default " + info.getColumn(4).getString() +
                       " key " + std::to_string(info.getColumn(5).getInt()));
    }
  }
  SQLite::Statement indexes(
      db, "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name");
  while (indexes.executeStep())
    layout.push_back("index " + indexes.getColumn(0).getString() + " on " + indexes.getColumn(1).getString());
  return layout;
}

// The layout schema::kResultsStoreSchema creates (results/schema/store_schema.h): what every
// store the writer opens must have, new or migrated.
std::vector<std::string> schema_layout(const std::filesystem::path& dir) {
  SQLite::Database db((dir / "schema.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(std::string(schema::kResultsStoreMetaTable));
  db.exec(schema::kResultsStoreSchema);
  return layout_of(db);
}

TEST(ResultsStoreTest, ANewStoreHasTheOneSchema) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  { ResultsStore store(file); }
  SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(layout_of(db), schema_layout(dir.path()));
  EXPECT_EQ(db.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
            std::to_string(schema::kResultsStoreSchemaVersion));
}

// A store written by version 1 (no adaptive/marker columns, no epoch_meters, no epochs.start_s)
// is migrated in place to the current version when opened: its runs stay, new runs store every
// column.
TEST(ResultsStoreTest, AVersionOneStoreIsMigratedAndKeepsItsRuns) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE runs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, repetition INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  model TEXT, dataset TEXT, task TEXT, batch_size INTEGER, accumulate INTEGER, workers INTEGER,
  cache TEXT, power_mode TEXT, cpu_cores INTEGER, cpu_freq_mhz REAL, gpu_freq_mhz REAL, emc_freq_mhz REAL,
  board_kind TEXT, board_model TEXT, simulated INTEGER, medium TEXT, energy_source TEXT,
  started_utc TEXT, duration_s REAL, result BLOB NOT NULL, PRIMARY KEY (sweep, run_id));
CREATE TABLE epochs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, e2e_s REAL, samples INTEGER, minibatches INTEGER,
  loss REAL, accuracy REAL, energy_j REAL, incremental_energy_j REAL, energy_per_sample_j REAL,
  average_power_w REAL, residency_before REAL, residency_after REAL, read_bytes INTEGER, read_ios INTEGER,
  PRIMARY KEY (sweep, run_id, epoch));
CREATE TABLE minibatches (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, idx INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, energy_j REAL, loss REAL, PRIMARY KEY (sweep, run_id, epoch, idx));
CREATE TABLE power_samples (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, t_s REAL NOT NULL, channel TEXT NOT NULL, power_w REAL NOT NULL);
)sql");
    std::string blob;
    make_run("old", 10).SerializeToString(&blob);
    SQLite::Statement insert(
        db,
        "INSERT INTO runs VALUES ('s1', 'old', 0, 'OK', '', 'lenet5', '', 'CLASSIFICATION', 16, 1, 2, "
        "'WARM', 'MODE_30W', NULL, NULL, 624.75, NULL, '', '', 0, '', '', '', 10, ?)");
    insert.bind(1, blob.data(), static_cast<int>(blob.size()));
    insert.exec();
    db.exec("INSERT INTO epochs (sweep, run_id, epoch, e2e_s) VALUES ('s1', 'old', 0, 10)");
  }
  {
    ResultsStore store(file);
    ASSERT_TRUE(store.contains("s1", "old"));
    EXPECT_EQ(store.load("s1", "old")->epochs_size(), 3);
    auto run = make_run("new", 10);
    run.mutable_epochs(1)->set_start_s(10.25);
    run.set_adaptive_minibatches(40);
    store.save(run);
  }
  SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
            std::to_string(ResultsStore::kSchemaVersion));
  EXPECT_EQ(db.execAndGet("SELECT adaptive_minibatches FROM runs WHERE run_id = 'new'").getInt(), 40);
  EXPECT_TRUE(db.execAndGet("SELECT adaptive_minibatches FROM runs WHERE run_id = 'old'").isNull());
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT start_s FROM epochs WHERE run_id = 'new' AND epoch = 1").getDouble(), 10.25);
  EXPECT_TRUE(db.execAndGet("SELECT start_s FROM epochs WHERE run_id = 'new' AND epoch = 0").isNull());
  EXPECT_TRUE(db.execAndGet("SELECT start_s FROM epochs WHERE run_id = 'old'").isNull());
  EXPECT_TRUE(db.tableExists("epoch_meters"));
  EXPECT_EQ(layout_of(db), schema_layout(dir.path()));  // migrated to the one schema, column for column
}

// A version 4 store (device_id in runs, nullable and outside the key) is rebuilt with the board in
// every table's key: its rows keep their values and their run's board ('' where none), and a run
// id already stored can then be stored again by another board. Read-only, it is read as it is.
TEST(ResultsStoreTest, AVersionFourStoreIsMigratedToTheBoardKey) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  std::string blob;
  auto old_run = make_run("old", 10);
  old_run.mutable_context()->set_device_id("orin/b1");
  old_run.SerializeToString(&blob);
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '4');
CREATE TABLE runs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, repetition INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  model TEXT, dataset TEXT, task TEXT, batch_size INTEGER, accumulate INTEGER, workers INTEGER,
  cache TEXT, power_mode TEXT, cpu_cores INTEGER, cpu_freq_mhz REAL, gpu_freq_mhz REAL, emc_freq_mhz REAL,
  board_kind TEXT, board_model TEXT, simulated INTEGER, medium TEXT, energy_source TEXT,
  started_utc TEXT, duration_s REAL, result BLOB NOT NULL,
  adaptive_minibatches INTEGER, gpio_marker TEXT, device_id TEXT, PRIMARY KEY (sweep, run_id));
CREATE TABLE epochs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, e2e_s REAL, samples INTEGER, minibatches INTEGER,
  loss REAL, accuracy REAL, energy_j REAL, incremental_energy_j REAL, energy_per_sample_j REAL,
  average_power_w REAL, residency_before REAL, residency_after REAL, read_bytes INTEGER, read_ios INTEGER,
  start_s REAL, PRIMARY KEY (sweep, run_id, epoch));
CREATE TABLE epoch_meters (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, meter TEXT NOT NULL,
  energy_j REAL, average_power_w REAL, readings INTEGER NOT NULL, gap_s REAL NOT NULL,
  PRIMARY KEY (sweep, run_id, epoch, meter));
CREATE TABLE minibatches (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, idx INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, energy_j REAL, loss REAL, PRIMARY KEY (sweep, run_id, epoch, idx));
CREATE TABLE power_samples (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, t_s REAL NOT NULL, channel TEXT NOT NULL, power_w REAL NOT NULL);
CREATE INDEX power_samples_run ON power_samples (sweep, run_id);
)sql");
    SQLite::Statement insert(
        db,
        "INSERT INTO runs VALUES ('s1', 'old', 0, 'OK', '', 'lenet5', '', 'CLASSIFICATION', 16, 1, 2, "
        "'WARM', 'MODE_30W', NULL, NULL, 624.75, NULL, '', '', 0, '', '', '', 10, ?, NULL, '', "
        "'orin/b1')");
    insert.bind(1, blob.data(), static_cast<int>(blob.size()));
    insert.exec();
    SQLite::Statement unnamed(
        db,
        "INSERT INTO runs VALUES ('s1', 'unnamed', 0, 'OK', '', 'lenet5', '', 'CLASSIFICATION', 16, "
        "1, 2, 'WARM', 'MODE_30W', NULL, NULL, 624.75, NULL, '', '', 0, '', '', '', 10, ?, NULL, '', NULL)");
    unnamed.bind(1, blob.data(), static_cast<int>(blob.size()));
    unnamed.exec();
    db.exec(
        "INSERT INTO epochs (sweep, run_id, epoch, e2e_s, start_s) VALUES ('s1', 'old', 0, 10, 0.5), ('s1', 'unnamed', "
        "0, 3, NULL)");
    db.exec("INSERT INTO epoch_meters VALUES ('s1', 'old', 0, 'ina:/dev/x', 7.5, 0.75, 12, 0)");
    db.exec("INSERT INTO minibatches VALUES ('s1', 'old', 0, 0, 0.1, 0.2, NULL, 2.3)");
    db.exec("INSERT INTO power_samples VALUES ('s1', 'old', 0.25, 'VDD_IN', 5.5)");
  }
  {
    const ResultsStore read_only(file, ResultsStore::Access::kReadOnly);
    EXPECT_EQ(read_only.devices_of("s1", "unnamed"), std::vector<std::string>{""});
    EXPECT_EQ(read_only.power_samples("s1", "old").size(), 1u);
    EXPECT_TRUE(read_only.contains("s1", "old", "orin/b1"));
  }
  {
    ResultsStore store(file);
    EXPECT_TRUE(store.contains("s1", "old", "orin/b1"));
    EXPECT_TRUE(store.contains("s1", "unnamed", ""));
    auto on_b2 = make_run("old", 20);
    on_b2.mutable_context()->set_device_id("orin/b2");
    store.save(on_b2);
    EXPECT_EQ(store.devices_of("s1", "old"), (std::vector<std::string>{"orin/b1", "orin/b2"}));
    ASSERT_EQ(store.power_samples("s1", "old", "orin/b1").size(), 1u);
    EXPECT_DOUBLE_EQ(store.power_samples("s1", "old", "orin/b1")[0].power_w, 5.5);
  }
  SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
            std::to_string(ResultsStore::kSchemaVersion));
  EXPECT_DOUBLE_EQ(
      db.execAndGet("SELECT start_s FROM epochs WHERE run_id = 'old' AND device_id = 'orin/b1'").getDouble(), 0.5);
  EXPECT_EQ(db.execAndGet("SELECT device_id FROM epochs WHERE run_id = 'unnamed'").getString(), "");
  EXPECT_EQ(db.execAndGet("SELECT readings FROM epoch_meters WHERE device_id = 'orin/b1'").getInt(), 12);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT loss FROM minibatches WHERE device_id = 'orin/b1'").getDouble(), 2.3);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%_v4'").getInt(), 0);
  EXPECT_EQ(
      db.execAndGet("SELECT sql FROM sqlite_master WHERE name = 'power_samples_run'").getString().find("device_id") !=
          std::string::npos,
      true);
  EXPECT_EQ(layout_of(db), schema_layout(dir.path()));  // migrated to the one schema, column for column
}

// A version 5 store gains the task-metric columns at the end of runs and epochs: its rows keep
// their values with NULL metrics, and a run with dev scores and a target stores them. On the way
// to version 7 its runs' settings (table run_settings) come from their records.
TEST(ResultsStoreTest, AVersionFiveStoreGainsTheTaskMetricColumns) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '5');
CREATE TABLE runs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, repetition INTEGER NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL,
  model TEXT, dataset TEXT, task TEXT, batch_size INTEGER, accumulate INTEGER, workers INTEGER,
  cache TEXT, power_mode TEXT, cpu_cores INTEGER, cpu_freq_mhz REAL, gpu_freq_mhz REAL, emc_freq_mhz REAL,
  board_kind TEXT, board_model TEXT, simulated INTEGER, medium TEXT, energy_source TEXT,
  started_utc TEXT, duration_s REAL,
  result BLOB NOT NULL,
  adaptive_minibatches INTEGER, gpio_marker TEXT, device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id));
CREATE TABLE epochs (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, e2e_s REAL, samples INTEGER, minibatches INTEGER,
  loss REAL, accuracy REAL, energy_j REAL, incremental_energy_j REAL, energy_per_sample_j REAL,
  average_power_w REAL, residency_before REAL, residency_after REAL, read_bytes INTEGER, read_ios INTEGER,
  start_s REAL, device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id, epoch));
CREATE TABLE epoch_meters (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, meter TEXT NOT NULL,
  energy_j REAL, average_power_w REAL, readings INTEGER NOT NULL, gap_s REAL NOT NULL,
  device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id, epoch, meter));
CREATE TABLE minibatches (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, epoch INTEGER NOT NULL, idx INTEGER NOT NULL,
  stall_s REAL, compute_s REAL, energy_j REAL, loss REAL, device_id TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (sweep, run_id, device_id, epoch, idx));
CREATE TABLE power_samples (
  sweep TEXT NOT NULL, run_id TEXT NOT NULL, t_s REAL NOT NULL, channel TEXT NOT NULL, power_w REAL NOT NULL,
  device_id TEXT NOT NULL DEFAULT '');
CREATE INDEX power_samples_run ON power_samples (sweep, run_id, device_id);
)sql");
    std::string blob;
    make_run("old", 10).SerializeToString(&blob);
    SQLite::Statement insert(
        db,
        "INSERT INTO runs VALUES ('s1', 'old', 0, 'OK', '', 'lenet5', '', 'CLASSIFICATION', 16, 1, 2, "
        "'WARM', 'MODE_30W', NULL, NULL, 624.75, NULL, '', '', 0, '', '', '', 10, ?, NULL, '', '')");
    insert.bind(1, blob.data(), static_cast<int>(blob.size()));
    insert.exec();
    db.exec("INSERT INTO epochs (sweep, run_id, epoch, e2e_s) VALUES ('s1', 'old', 0, 10)");
  }
  {
    ResultsStore store(file);
    EXPECT_TRUE(store.contains("s1", "old"));
    auto run = make_run("new", 10);
    run.mutable_epochs(0)->set_eval_entity_f1(0.5);
    run.mutable_epochs(1)->set_eval_entity_f1(0.9);
    run.mutable_epochs(1)->set_eval_exact_match(0.75);
    run.mutable_target()->set_target_f1(0.85);
    run.mutable_target()->set_epoch(1);
    run.mutable_target()->set_time_s(21);
    run.mutable_target()->set_energy_j(100);
    store.save(run);
    EXPECT_DOUBLE_EQ(store.load("s1", "new")->target().energy_j(), 100);
  }
  SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), "10");
  EXPECT_EQ(db.execAndGet("SELECT phase FROM epochs WHERE run_id = 'old'").getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM run_phases").getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT COUNT(*) FROM phase_steps").getInt(), 0);
  EXPECT_EQ(db.execAndGet("SELECT value FROM run_settings WHERE run_id = 'old' AND setting = 'batch'").getString(),
            "16");
  EXPECT_EQ(db.execAndGet("SELECT field FROM run_settings WHERE run_id = 'old' AND setting = 'workers'").getString(),
            "loader.workers");
  EXPECT_EQ(layout_of(db), schema_layout(dir.path()));  // the columns in the new schema's order
  EXPECT_TRUE(db.execAndGet("SELECT eval_entity_f1 FROM epochs WHERE run_id = 'old'").isNull());
  EXPECT_TRUE(db.execAndGet("SELECT target_f1 FROM runs WHERE run_id = 'old'").isNull());
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT eval_entity_f1 FROM epochs WHERE run_id = 'new' AND epoch = 1").getDouble(),
                   0.9);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT eval_exact_match FROM epochs WHERE run_id = 'new' AND epoch = 1").getDouble(),
                   0.75);
  EXPECT_TRUE(db.execAndGet("SELECT eval_squad_f1 FROM epochs WHERE run_id = 'new' AND epoch = 1").isNull());
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT target_f1 FROM runs WHERE run_id = 'new'").getDouble(), 0.85);
  EXPECT_EQ(db.execAndGet("SELECT target_epoch FROM runs WHERE run_id = 'new'").getInt(), 1);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT time_to_target_s FROM runs WHERE run_id = 'new'").getDouble(), 21);
  EXPECT_DOUBLE_EQ(db.execAndGet("SELECT energy_to_target_j FROM runs WHERE run_id = 'new'").getDouble(), 100);
  EXPECT_TRUE(db.execAndGet("SELECT wall_to_target_s FROM runs WHERE run_id = 'new'").isNull());
}

// A process killed while saving leaves either the whole run or nothing.
TEST(ResultsStoreTest, KilledSaveIsAllOrNothing) {
  testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  { ResultsStore(file).save(make_run("0000-r0", 1)); }
  std::vector<StoredPowerSample> many(200000, StoredPowerSample{0.0, "VDD_IN", 1.0});
  for (int delay_ms : {1, 5, 20, 60}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ResultsStore store(file);
      for (int i = 1;; ++i) store.save(make_run("run-" + std::to_string(i), 1), many);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ResultsStore store(file);
    EXPECT_TRUE(store.contains("s1", "0000-r0"));
    for (const auto& summary : store.list("s1")) {
      if (summary.run_id == "0000-r0") continue;
      EXPECT_EQ(store.power_samples("s1", summary.run_id).size(), many.size()) << summary.run_id;
      EXPECT_EQ(store.load("s1", summary.run_id)->epochs_size(), 3);
    }
  }
}

// Another program's database is never written: not a table, not an index, not the WAL switch.
TEST(ResultsStoreSafety, AForeignDatabaseIsRefusedAndLeftByteForByte) {
  const testing::TempDir dir;
  const auto file = dir.path() / "results.db";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY); CREATE TABLE notes (text TEXT)");
  }
  const std::string before = bytes_of(file);
  try {
    ResultsStore store(file);
    ADD_FAILURE() << "a foreign database was opened as a store";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is not a jetchar results store (it has no table 'meta'; its tables: notes, "
                                         "runs); nothing was written to it"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(bytes_of(file), before);
  EXPECT_FALSE(std::filesystem::exists(file.string() + "-wal"));
}

TEST(ResultsStoreSafety, AStoreThatCannotBeCreatedOnAFullDiskLeavesNoFile) {
  const testing::SmallMount mount(64);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  mount.fill();
  const auto file = mount.path() / "results.db";
  EXPECT_THROW(ResultsStore{file}, std::runtime_error);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    EXPECT_FALSE(std::filesystem::exists(file.string() + suffix)) << suffix;
}

TEST(ResultsStoreSafety, AReadOnlyFolderIsAPermissionError) {
  const testing::SmallMount mount(256);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  mount.set_read_only(true);
  try {
    ResultsStore store(mount.path() / "results.db");
    ADD_FAILURE() << "a store was created on a read-only file system";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EROFS) << e.what();
  }
  mount.set_read_only(false);
}

}  // namespace
}  // namespace jetchar::results
