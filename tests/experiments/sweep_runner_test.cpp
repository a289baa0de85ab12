#include "experiments/sweep_runner.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "experiments/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

// Stands in for the board and the workload: the loop under test only sees results.
class ScriptedExecutor : public RunExecutor {
 public:
  proto::RunResult execute(const PlannedRun& run) override {
    executed.push_back(run.run_id);
    if (static_cast<int>(executed.size()) == throw_on_call) throw std::runtime_error("board lost");
    proto::RunResult result;
    result.set_status(run.spec.workload().batch_size() == 64 ? proto::OOM : proto::OK);
    result.mutable_resolved()->CopyFrom(run.spec);
    return result;
  }
  std::string describe() const override { return "scripted"; }

  std::vector<std::string> executed;
  int throw_on_call = -1;
};

SweepPlan four_run_plan() {
  return plan_sweep(parse_sweep_spec(R"(
name: "s"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
axes { field: "workload.batch_size" values: ["8", "16", "32", "64"] }
)", "s"), "s");
}

TEST(SweepRunnerTest, RunsEveryRunOnceAndRecordsStatus) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  SystemdNotifier notifier;
  ScriptedExecutor executor;
  std::ostringstream log;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  options.log = &log;
  const auto progress = SweepRunner(store, journal, notifier).run(four_run_plan(), executor, options);
  EXPECT_EQ(progress.done, 4u);
  EXPECT_EQ(progress.ran_now, 4u);
  EXPECT_EQ(progress.failed, 1u);
  EXPECT_EQ(store.load("s", "0003-r0")->status(), proto::OOM);
  EXPECT_NE(log.str().find("run 0003-r0 (4/4) OOM"), std::string::npos) << log.str();
}

TEST(SweepRunnerTest, ResumeRerunsTheInterruptedRunAndKeepsCompletedOnesOnce) {
  testing::TempDir dir;
  const auto plan = four_run_plan();
  SystemdNotifier notifier;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  {
    ResultsStore store(dir.path() / "results.db");
    SweepJournal journal(dir.path() / "journal");
    ScriptedExecutor executor;
    executor.throw_on_call = 3;
    EXPECT_THROW(SweepRunner(store, journal, notifier).run(plan, executor, options), std::runtime_error);
    EXPECT_EQ(store.list("s").size(), 2u);
  }
  ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  EXPECT_EQ(journal.interrupted(), (std::set<std::string>{"0002-r0"}));
  ScriptedExecutor executor;
  std::ostringstream log;
  options.log = &log;
  const auto progress = SweepRunner(store, journal, notifier).run(plan, executor, options);
  EXPECT_EQ(executor.executed, (std::vector<std::string>{"0002-r0", "0003-r0"}));
  EXPECT_EQ(progress.done, 4u);
  EXPECT_EQ(progress.ran_now, 2u);
  EXPECT_EQ(store.list("s").size(), 4u);
  EXPECT_NE(log.str().find("run 0002-r0 was interrupted"), std::string::npos);
  EXPECT_TRUE(SweepJournal(dir.path() / "journal").interrupted().empty());
}

TEST(SweepRunnerTest, StopRequestEndsBetweenRuns) {
  testing::TempDir dir;
  ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  SystemdNotifier notifier;
  ScriptedExecutor executor;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  options.stop_requested = [&] { return executor.executed.size() == 1; };
  bool stopped = false;
  const auto progress = SweepRunner(store, journal, notifier).run(four_run_plan(), executor, options, &stopped);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(progress.done, 1u);
}

TEST(SweepJournalTest, TornLastLineIsIgnored) {
  testing::TempDir dir;
  dir.write("journal", "start 0000-r0\ndone 0000-r0\nstart 0001-r0\ndone 00");
  SweepJournal journal(dir.path() / "journal");
  EXPECT_EQ(journal.finished_runs(), (std::set<std::string>{"0000-r0"}));
  EXPECT_EQ(journal.interrupted(), (std::set<std::string>{"0001-r0"}));
}

}  // namespace
}  // namespace jetchar::experiments
