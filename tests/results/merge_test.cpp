#include "results/merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "results/mode_predictions_store.h"
#include "results/store.h"
#include "sysfs/writer_lock.h"
#include "tests/support/temp_dir.h"

namespace jetchar::results {
namespace {

namespace fs = std::filesystem;

proto::RunResult run_on(const std::string& run_id, const std::string& device, double e2e_s) {
  proto::RunResult result;
  result.set_sweep("fleet");
  result.set_run_id(run_id);
  result.set_status(proto::OK);
  result.mutable_context()->set_device_id(device);
  result.mutable_context()->set_node(device.substr(0, 2));
  auto* epoch = result.add_epochs();
  epoch->set_epoch(1);
  epoch->set_e2e_s(e2e_s);
  return result;
}

fs::path store_with(const fs::path& dir, const std::vector<proto::RunResult>& runs) {
  fs::create_directories(dir);
  ResultsStore store(dir / "results.db");
  for (const auto& run : runs) store.save(run, {{0.0, "VDD_IN", 5.0}});
  return dir;
}

TEST(ResultsMerge, EveryRunOfEveryNodeOnceAndAgainIsANoOp) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "nodes/b1", {run_on("0000-r0", "b1/1", 1), run_on("0003-r0", "b1/1", 2)});
  const auto b2 = store_with(dir.path() / "nodes/b2", {run_on("0001-r0", "b2/2", 3)});
  const auto first = merge_results(dir.path() / "merged", {b1, b2});
  EXPECT_EQ(first.inputs, 2u);
  EXPECT_EQ(first.runs_read, 3u);
  EXPECT_EQ(first.runs_added, 3u);
  EXPECT_EQ(first.duplicates, 0u);
  EXPECT_EQ(first.runs_total, 3u);

  const auto again = merge_results(dir.path() / "merged", {b1, b2});
  EXPECT_EQ(again.runs_added, 0u);
  EXPECT_EQ(again.duplicates, 3u);
  EXPECT_EQ(again.runs_total, 3u);

  const ResultsStore merged(dir.path() / "merged/results.db", ResultsStore::Access::kReadOnly);
  const auto runs = merged.load_all("fleet");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].run_id(), "0001-r0");
  EXPECT_EQ(runs[1].context().device_id(), "b2/2");
  EXPECT_EQ(merged.power_samples("fleet", "0003-r0").size(), 1u);
}

TEST(ResultsMerge, ARunStoredTwiceByItsBoardIsKeptOnce) {
  testing::TempDir dir;
  // A requeued task's store copied next to the original: the same records twice.
  const auto original = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  const auto copy = store_with(dir.path() / "b1-copy", {run_on("0000-r0", "b1/1", 1), run_on("0001-r0", "b1/1", 2)});
  const auto summary = merge_results(dir.path() / "merged", {original, copy});
  EXPECT_EQ(summary.runs_read, 3u);
  EXPECT_EQ(summary.duplicates, 1u);
  EXPECT_EQ(summary.runs_total, 2u);
}

TEST(ResultsMerge, AConflictNamesBothSourcesAndMergesNothing) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  const auto differs =
      store_with(dir.path() / "b1-other", {run_on("0001-r0", "b1/1", 5), run_on("0000-r0", "b1/1", 9)});
  try {
    merge_results(dir.path() / "merged", {b1, differs});
    ADD_FAILURE() << "a run with two contents was merged";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("run 0000-r0"), std::string::npos) << message;
    EXPECT_NE(message.find((b1 / "results.db").string()), std::string::npos) << message;
    EXPECT_NE(message.find((differs / "results.db").string()), std::string::npos) << message;
    EXPECT_NE(message.find("nothing was merged"), std::string::npos) << message;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "merged")) << "a refused merge left its new output folder";

  // Into an existing store: it stays as it was.
  merge_results(dir.path() / "merged", {b1});
  const auto before = std::filesystem::file_size(dir.path() / "merged/results.db");
  EXPECT_THROW(merge_results(dir.path() / "merged", {differs}), std::invalid_argument);
  const ResultsStore merged(dir.path() / "merged/results.db", ResultsStore::Access::kReadOnly);
  EXPECT_EQ(merged.load_all().size(), 1u) << "the conflicting store's other run was merged";
  EXPECT_EQ(std::filesystem::file_size(dir.path() / "merged/results.db"), before);
}

TEST(ResultsMerge, AStopBeforeTheWriteMergesNothingAndLeavesNoNewFolder) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  const auto b2 = store_with(dir.path() / "b2", {run_on("0000-r0", "b2/2", 2)});
  int checks = 0;
  MergeOptions options;
  // Stops at the last check before the write: the plan checks once per input, and into a new
  // folder that still holds no store the plan made before the lock stands (no second plan).
  options.stop_requested = [&checks] { return ++checks > 2; };
  EXPECT_THROW(merge_results(dir.path() / "merged", {b1, b2}, options), MergeStopped);
  EXPECT_EQ(checks, 3);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "merged"));
}

// A merge SIGKILLed just after SQLite created the output file leaves it empty (0 bytes): the next
// merge makes it a store and merges, instead of refusing it as "not a results store".
TEST(ResultsMerge, AnOutputStoreAKilledMergeLeftEmptyIsMergedInto) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  std::filesystem::create_directories(dir.path() / "merged");
  std::ofstream(dir.path() / "merged" / "results.db").close();
  const auto summary = merge_results(dir.path() / "merged", {b1});
  EXPECT_EQ(summary.runs_added, 1u);
  EXPECT_EQ(summary.runs_total, 1u);
}

// Two merges into the same new folder at once: the one that finds the folder made and locked by
// the other while it planned is refused and leaves that folder as it is (it removed it, and the
// other merge's store with it).
TEST(ResultsMerge, AMergeRefusedByAnotherWriterOfItsNewFolderLeavesThatFolder) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  const fs::path merged = dir.path() / "merged";
  std::optional<sysfs::WriterLock> other;
  MergeOptions options;
  options.progress = [&](const MergeProgress& progress) {
    if (progress.stage != MergeProgress::Stage::kInputRead || other) return;
    store_with(merged, {run_on("0001-r0", "b2/2", 2)});  // the other merge's folder and store
    other.emplace(merged / "lock", "the other merge");
  };
  EXPECT_THROW(merge_results(merged, {b1}, options), sysfs::LockHeld);
  ASSERT_TRUE(fs::exists(merged / "results.db"));
  EXPECT_EQ(ResultsStore(merged / "results.db", ResultsStore::Access::kReadOnly).load_all("fleet").size(), 1u);
}

TEST(ResultsMerge, ASecondWriterOfTheOutputIsRefused) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  std::filesystem::create_directories(dir.path() / "merged");
  const sysfs::WriterLock held(dir.path() / "merged" / "lock", "the test's lock");
  EXPECT_THROW(merge_results(dir.path() / "merged", {b1}), sysfs::LockHeld);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "merged" / "results.db"));
}

// The key is (sweep, run id, board): one run id measured on two boards is two devices' runs, each
// kept once however often it is merged; the same run of one board with other content stays an
// error naming both stores.
TEST(ResultsMerge, OneRunIdOnTwoBoardsIsKeptAsTwoDevicesRuns) {
  testing::TempDir dir;
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1), run_on("0001-r0", "b1/1", 2)});
  const auto b2 = store_with(dir.path() / "b2", {run_on("0000-r0", "b2/2", 1.5)});
  const auto first = merge_results(dir.path() / "merged", {b1, b2});
  EXPECT_EQ(first.runs_added, 3u);
  EXPECT_EQ(first.runs_total, 3u);
  const auto again = merge_results(dir.path() / "merged", {b2, b1});
  EXPECT_EQ(again.runs_added, 0u);
  EXPECT_EQ(again.duplicates, 3u);

  const ResultsStore merged(dir.path() / "merged/results.db", ResultsStore::Access::kReadOnly);
  EXPECT_EQ(merged.devices_of("fleet", "0000-r0"), (std::vector<std::string>{"b1/1", "b2/2"}));
  EXPECT_DOUBLE_EQ(merged.load("fleet", "0000-r0", "b2/2")->epochs(0).e2e_s(), 1.5);
  EXPECT_EQ(merged.power_samples("fleet", "0000-r0", "b1/1").size(), 1u);
  EXPECT_THROW(merged.load("fleet", "0000-r0"), std::invalid_argument) << "which board's run is ambiguous";

  const auto b2_other = store_with(dir.path() / "b2-other", {run_on("0000-r0", "b2/2", 7)});
  try {
    merge_results(dir.path() / "merged", {b2_other});
    ADD_FAILURE() << "one board's run with two contents was merged";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("b2/2"), std::string::npos) << message;
    EXPECT_NE(message.find((dir.path() / "merged/results.db").string()), std::string::npos) << message;
    EXPECT_NE(message.find((b2_other / "results.db").string()), std::string::npos) << message;
  }
}

// An adaptive_profile sweep's predictions and choice come along with its runs, once; the same
// sweep's predictions differing between two sources are a conflict that merges nothing.
TEST(ResultsMerge, ModePredictionsAndTheChoiceComeAlongOnce) {
  testing::TempDir dir;
  const auto a = store_with(dir.path() / "a", {run_on("0000-r0", "b1/1", 1)});
  StoredModePrediction p;
  p.mode = "4c/cpu2202/gpu1300/emc3199MHz";
  p.cpu_cores = 4;
  p.time_s = 1.5;
  p.time_low_s = 1.4;
  p.time_high_s = 1.7;
  p.time_form = "nested";
  StoredModeChoice choice;
  choice.budget = "least energy with epoch time <= 2 s";
  choice.mode = p.mode;
  choice.eligible = 1;
  choice.modes = 1;
  choice.time_s = 1.5;
  save_mode_predictions(a / "results.db", "fleet", {p}, choice);

  const auto first = merge_results(dir.path() / "merged", {a});
  EXPECT_EQ(first.predictions_added, 1u);
  const fs::path merged = dir.path() / "merged/results.db";
  EXPECT_EQ(load_mode_predictions(merged, "fleet"), std::vector<StoredModePrediction>{p});
  EXPECT_EQ(load_mode_choice(merged, "fleet"), choice);
  EXPECT_EQ(merge_results(dir.path() / "merged", {a}).predictions_added, 0u);  // held already

  const auto b = store_with(dir.path() / "b", {run_on("0001-r0", "b2/2", 2)});
  p.time_s = 1.6;
  save_mode_predictions(b / "results.db", "fleet", {p});
  try {
    merge_results(dir.path() / "merged", {b});
    ADD_FAILURE() << "differing predictions were merged";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("the mode predictions of sweep 'fleet' differ between " + merged.string() + " and " +
                           (b / "results.db").string()),
              std::string::npos)
        << message;
  }
  const ResultsStore after(merged, ResultsStore::Access::kReadOnly);
  EXPECT_EQ(after.load_all("fleet").size(), 1u);  // b's run was not merged either
  EXPECT_EQ(load_mode_predictions(merged, "fleet").front().time_s, 1.5);
}

TEST(ResultsMerge, BadInputsAreNamed) {
  testing::TempDir dir;
  EXPECT_THROW(merge_results(dir.path() / "merged", {}), std::invalid_argument);
  try {
    merge_results(dir.path() / "merged", {dir.path() / "absent"});
    ADD_FAILURE() << "an absent store was merged";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("absent"), std::string::npos) << e.what();
  }
  const auto b1 = store_with(dir.path() / "b1", {run_on("0000-r0", "b1/1", 1)});
  EXPECT_THROW(merge_results(b1, {b1}), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::results
