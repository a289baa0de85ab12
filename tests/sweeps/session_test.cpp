// A sweep session end to end without a board: the plan, the results folder it takes (nothing before
// open_results, one writer), the runs a fleet task selects, the observer, and a stop between runs.
#include "sweeps/session.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sysfs/writer_lock.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
namespace {

namespace fs = std::filesystem;

class EchoExecutor : public RunExecutor {
 public:
  proto::RunResult execute(const PlannedRun& run) override {
    executed.push_back(run.run_id);
    proto::RunResult result;
    result.set_status(proto::OK);
    result.mutable_resolved()->CopyFrom(run.spec);
    return result;
  }
  std::string describe() const override { return "echo"; }
  std::vector<std::string> executed;
};

class RecordingObserver : public SweepObserver {
 public:
  void run_done(const SweepProgress& progress, const PlannedRun& run, const proto::RunResult&) override {
    runs.push_back(run.run_id + "@" + std::to_string(progress.done));
  }
  std::vector<std::string> runs;
};

const char* const kSpec = R"(
name: "three"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
axes { field: "workload.batch_size" values: ["8", "16", "32"] }
)";

fs::path write_spec(const fs::path& dir, const std::string& text) {
  fs::path file = dir / "sweep.textproto";
  std::ofstream(file) << text;
  return file;
}

TEST(SweepSessionTest, WritesNothingBeforeOpenResultsThenRunsAndStoresEveryRun) {
  testing::TempDir dir;
  const fs::path results = dir.path() / "results";
  SweepSession session({write_spec(dir.path(), kSpec), results, "", std::nullopt, false});
  EXPECT_EQ(session.plan().runs.size(), 3u);
  EXPECT_EQ(session.name(), "three");
  EXPECT_FALSE(fs::exists(results));

  session.open_results();
  EXPECT_TRUE(fs::exists(session.location().spec()));
  EchoExecutor executor;
  RecordingObserver observer;
  const SweepOutcome outcome = session.run(
      executor, [] { return false; }, observer);
  EXPECT_FALSE(outcome.stopped);
  EXPECT_FALSE(outcome.adaptive);
  EXPECT_EQ(outcome.progress.done, 3u);
  EXPECT_EQ(observer.runs, (std::vector<std::string>{"0000-r0@1", "0001-r0@2", "0002-r0@3"}));
  EXPECT_EQ(session.stored_results().size(), 3u);
}

TEST(SweepSessionTest, AFolderOfAnotherSpecIsRefusedAndASecondWriterIsRefused) {
  testing::TempDir dir;
  const fs::path results = dir.path() / "results";
  SweepSession first({write_spec(dir.path(), kSpec), results, "", std::nullopt, false});
  first.open_results();

  // The same spec resumes there, but only one session writes at a time.
  SweepSession second({write_spec(dir.path(), kSpec), results, "", std::nullopt, false});
  EXPECT_THROW(second.open_results(), sysfs::LockHeld);

  testing::TempDir other;
  const std::string different = std::string(kSpec) + "axes { field: \"loader.workers\" values: [\"0\", \"1\"] }\n";
  EXPECT_THROW(SweepSession({write_spec(other.path(), different), results, "", std::nullopt, false}),
               std::invalid_argument);
}

TEST(SweepSessionTest, AFleetTaskRunsItsSelectionUnderTheFleetsName) {
  testing::TempDir dir;
  RunSelection selection{{"0001-r0"}, "fleet-sweep"};
  SweepSession session({write_spec(dir.path(), kSpec), dir.path() / "node", "", selection, false});
  ASSERT_EQ(session.plan().runs.size(), 1u);
  EXPECT_EQ(session.name(), "fleet-sweep");
  session.open_results();
  EchoExecutor executor;
  RecordingObserver observer;
  session.run(
      executor, [] { return false; }, observer);
  EXPECT_EQ(executor.executed, (std::vector<std::string>{"0001-r0"}));
  ASSERT_EQ(session.stored_results().size(), 1u);
  EXPECT_EQ(session.stored_results()[0].run_id(), "0001-r0");
}

const char* const kMultiNodeSpec = R"(
name: "worlds"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
runs { workload { distributed { nnodes: 3 } } }
runs { }
)";

// A fleet task of a multi-node run: the run placed in the step's world (no setting of its
// configuration changes), stored by node 0 only.
TEST(SweepSessionTest, AMultiNodeRunIsPlacedInTheWorldAndOnlyNodeZeroStoresIt) {
  testing::TempDir dir;
  const fs::path spec = write_spec(dir.path(), kMultiNodeSpec);
  for (const std::uint32_t rank : {0U, 2U}) {
    RunSelection selection{{"0000-r0"}, "fleet-sweep", SlurmStepWorld{3, rank, "b1", 29512}};
    const fs::path node = dir.path() / ("node" + std::to_string(rank));
    SweepSession session({spec, node, "", selection, false});
    ASSERT_EQ(session.plan().runs.size(), 1u);
    const auto& placed = session.plan().runs[0].spec.workload().distributed();
    EXPECT_EQ(placed.nnodes(), 3u);
    EXPECT_EQ(placed.node_rank(), rank);
    EXPECT_EQ(placed.master_addr(), "b1");
    EXPECT_EQ(placed.master_port(), 29512u);
    EXPECT_EQ(session.records_runs(), rank == 0);
    session.open_results();
    EchoExecutor executor;
    RecordingObserver observer;
    session.run(
        executor, [] { return false; }, observer);
    EXPECT_EQ(executor.executed, (std::vector<std::string>{"0000-r0"}));
    EXPECT_EQ(session.stored_results().size(), rank == 0 ? 1u : 0u) << "node " << rank;
  }
}

// Without a Slurm job to place its nodes, a multi-node run that names no port is refused before
// anything is written; the runs of one machine of such a spec run as fleet chunks.
TEST(SweepSessionTest, AMultiNodeRunOutsideAFleetsJobIsRefused) {
  testing::TempDir dir;
  const fs::path spec = write_spec(dir.path(), kMultiNodeSpec);
  try {
    SweepSession session({spec, dir.path() / "results", "", std::nullopt, false});
    ADD_FAILURE() << "sweep run took a 3-node run";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("run 0000-r0 is a run of 3 nodes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("jetchar sweep submit --slurm"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path() / "results"));
  RunSelection chunk{{"0001-r0"}, "fleet-sweep"};
  EXPECT_EQ(SweepSession({spec, dir.path() / "node", "", chunk, false}).plan().runs.size(), 1u);
}

TEST(SweepSessionTest, AStopEndsTheSweepAfterTheCurrentRunAndAResumeFinishesIt) {
  testing::TempDir dir;
  const fs::path spec = write_spec(dir.path(), kSpec);
  const fs::path results = dir.path() / "results";
  {
    SweepSession session({spec, results, "", std::nullopt, false});
    session.open_results();
    EchoExecutor executor;
    RecordingObserver observer;
    const auto outcome = session.run(
        executor, [&executor] { return executor.executed.size() >= 1; }, observer);
    EXPECT_TRUE(outcome.stopped);
    EXPECT_EQ(executor.executed.size(), 1u);
  }
  SweepSession resumed({spec, results, "", std::nullopt, false});
  resumed.open_results();
  EchoExecutor executor;
  RecordingObserver observer;
  const auto outcome = resumed.run(
      executor, [] { return false; }, observer);
  EXPECT_FALSE(outcome.stopped);
  EXPECT_EQ(executor.executed.size(), 2u);
  EXPECT_EQ(resumed.stored_results().size(), 3u);
}

TEST(SweepSessionTest, AnAdaptiveSpecIsRefusedAsAFleetTaskBeforeAnythingIsWritten) {
  testing::TempDir dir;
  const std::string adaptive = std::string(kSpec) + "adaptive_profile { initial_modes: 3 }\n";
  const fs::path results = dir.path() / "results";
  try {
    const SweepSession session({write_spec(dir.path(), adaptive), results, "", RunSelection{{"0000-r0"}, "f"}, false});
    FAIL() << "an adaptive sweep was accepted as a fleet task";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not as fleet tasks"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(results));
}

}  // namespace
}  // namespace jetchar::sweeps
