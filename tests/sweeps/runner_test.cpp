#include "sweeps/runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
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
    for (std::size_t i = 0; i < minibatch_records; ++i) {
      auto* m = result.add_minibatches();
      m->set_index(static_cast<std::uint32_t>(i));
      m->set_stall_s(1e-3 * static_cast<double>(i));
      m->set_compute_s(2e-3 * static_cast<double>(i));
    }
    if (executed.size() <= durations_s.size()) result.set_duration_s(durations_s[executed.size() - 1]);
    if (after_call) after_call(executed.size());
    return result;
  }
  std::string describe() const override { return "scripted"; }

  std::vector<std::string> executed;
  int throw_on_call = -1;
  std::size_t minibatch_records = 0;  ///< per result, to make results take disk space
  std::vector<double> durations_s;    ///< what each call reports as its run's duration
  std::function<void(std::size_t)> after_call;
};

SweepPlan four_run_plan() {
  return plan_sweep(parse_sweep_spec(R"(
name: "s"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
axes { field: "workload.batch_size" values: ["8", "16", "32", "64"] }
)",
                                     "s"),
                    "s");
}

TEST(SweepRunnerTest, RunsEveryRunOnceAndRecordsStatus) {
  testing::TempDir dir;
  results::ResultsStore store(dir.path() / "results.db");
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

// A node other than 0 of a multi-node run carries its part out and stores nothing (node 0
// records the world's run); its journal says the run started and ended, and its log says so.
TEST(SweepRunnerTest, ANodeThatDoesNotRecordRunsEachRunAndStoresNothing) {
  testing::TempDir dir;
  results::ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  SystemdNotifier notifier;
  ScriptedExecutor executor;
  std::ostringstream log;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  options.log = &log;
  options.record = false;
  std::vector<proto::RunStatus> told;
  options.on_run = [&told](const SweepProgress&, const PlannedRun&, const proto::RunResult& result) {
    told.push_back(result.status());
  };
  const auto progress = SweepRunner(store, journal, notifier).run(four_run_plan(), executor, options);
  EXPECT_EQ(executor.executed.size(), 4u);
  EXPECT_EQ(progress.ran_now, 4u);
  EXPECT_EQ(progress.done, 0u) << "nothing stored by this node";
  EXPECT_EQ(progress.failed, 1u);
  EXPECT_EQ(told, (std::vector<proto::RunStatus>{proto::OK, proto::OK, proto::OK, proto::OOM}));
  EXPECT_TRUE(store.load_all().empty());
  EXPECT_TRUE(SweepJournal(dir.path() / "journal").interrupted().empty());
  EXPECT_EQ(SweepJournal(dir.path() / "journal").finished_runs().size(), 4u);
  EXPECT_NE(log.str().find("run 0003-r0: this node's part ended OOM in "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("node 0 records the run"), std::string::npos) << log.str();
}

TEST(SweepRunnerTest, ResumeRerunsTheInterruptedRunAndKeepsCompletedOnesOnce) {
  testing::TempDir dir;
  const auto plan = four_run_plan();
  SystemdNotifier notifier;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  {
    results::ResultsStore store(dir.path() / "results.db");
    SweepJournal journal(dir.path() / "journal");
    ScriptedExecutor executor;
    executor.throw_on_call = 3;
    EXPECT_THROW(SweepRunner(store, journal, notifier).run(plan, executor, options), std::runtime_error);
    EXPECT_EQ(store.list("s").size(), 2u);
  }
  results::ResultsStore store(dir.path() / "results.db");
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
  results::ResultsStore store(dir.path() / "results.db");
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

TEST(SweepRunnerTest, EtaFollowsTheStoredRunsAsAdaptiveStoppingShortensThem) {
  testing::TempDir dir;
  const auto plan = four_run_plan();
  SystemdNotifier notifier;
  std::vector<std::optional<double>> etas;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  options.on_run = [&](const SweepProgress& progress, const PlannedRun&, const proto::RunResult&) {
    etas.push_back(progress.eta_s);
  };
  {
    // A 10 s run, then runs that adaptive stopping ended after 2 s; stopped after two runs.
    results::ResultsStore store(dir.path() / "results.db");
    SweepJournal journal(dir.path() / "journal");
    ScriptedExecutor executor;
    executor.durations_s = {10, 2};
    options.stop_requested = [&] { return executor.executed.size() == 2; };
    std::ostringstream log;
    options.log = &log;
    SweepRunner(store, journal, notifier).run(plan, executor, options);
    ASSERT_EQ(etas.size(), 2u);
    EXPECT_DOUBLE_EQ(*etas[0], 30.0);  // 10 s x 3 left
    EXPECT_DOUBLE_EQ(*etas[1], 12.0);  // mean 6 s x 2 left
    EXPECT_NE(log.str().find("run 0001-r0 (2/4) OK in "), std::string::npos) << log.str();
    EXPECT_NE(log.str().find("; 2/4 runs stored, ETA 12 s\n"), std::string::npos) << log.str();
  }
  // A resumed process starts from the stored runs' durations, not from nothing.
  etas.clear();
  results::ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  ScriptedExecutor executor;
  executor.durations_s = {2, 2};
  options.stop_requested = [] { return false; };
  options.log = nullptr;
  const auto progress = SweepRunner(store, journal, notifier).run(plan, executor, options);
  ASSERT_EQ(etas.size(), 2u);
  EXPECT_NEAR(*etas[0], 14.0 / 3.0, 1e-9);  // (10 + 2 + 2) / 3 x 1 left
  EXPECT_DOUBLE_EQ(*etas[1], 0.0);
  EXPECT_EQ(progress.done, 4u);
  EXPECT_EQ(progress_text(progress), "4/4 runs stored, 1 not OK");
}

// Fills the file system holding `dir` to the last byte; the filler is removed with the object.
class DiskFiller {
 public:
  explicit DiskFiller(const std::filesystem::path& dir) : file_(dir / "filler") {
    const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char> chunk(4096, 'x');
    while (::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    ::close(fd);
  }
  ~DiskFiller() { std::filesystem::remove(file_); }

 private:
  std::filesystem::path file_;
};

TEST(SweepRunnerTest, FullDiskStopsWithAClearErrorKeepsEarlierRunsAndResumes) {
  testing::TempDir dir;
  const auto disk = dir.path() / "disk";
  std::filesystem::create_directories(disk);
  if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=8m") != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << "); needs root";
  }
  struct Unmount {
    std::filesystem::path path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{disk};

  const auto plan = four_run_plan();
  SystemdNotifier notifier;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  std::unique_ptr<DiskFiller> filler;
  {
    results::ResultsStore store(disk / "results.db");
    SweepJournal journal(disk / "journal");
    ScriptedExecutor executor;
    executor.minibatch_records = 5000;  // about 0.3 MB of rows per run
    // The disk fills up while the third run is running.
    executor.after_call = [&](std::size_t call) {
      if (call == 3) filler = std::make_unique<DiskFiller>(disk);
    };
    try {
      SweepRunner(store, journal, notifier).run(plan, executor, options);
      FAIL() << "the sweep went on although its run could not be stored";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("results store " + (disk / "results.db").string() + ": run 0002-r0 not stored: "),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("full"), std::string::npos) << what;
      EXPECT_NE(what.find("earlier runs are intact"), std::string::npos) << what;
    }
    EXPECT_EQ(executor.executed.size(), 3u);
    EXPECT_EQ(store.list("s").size(), 2u);
  }
  // Space again: the earlier runs are intact, and a resume re-runs only the lost one and the rest.
  filler.reset();
  results::ResultsStore store(disk / "results.db");
  ASSERT_EQ(store.list("s").size(), 2u);
  EXPECT_EQ(store.load("s", "0001-r0")->minibatches_size(), 5000);
  SweepJournal journal(disk / "journal");
  EXPECT_EQ(journal.interrupted(), (std::set<std::string>{"0002-r0"}));
  ScriptedExecutor executor;
  const auto progress = SweepRunner(store, journal, notifier).run(plan, executor, options);
  EXPECT_EQ(executor.executed, (std::vector<std::string>{"0002-r0", "0003-r0"}));
  EXPECT_EQ(progress.done, 4u);
  EXPECT_EQ(store.list("s").size(), 4u);
}

TEST(SweepJournalTest, TornLastLineIsIgnored) {
  testing::TempDir dir;
  dir.write("journal", "start 0000-r0\ndone 0000-r0\nstart 0001-r0\ndone 00");
  SweepJournal journal(dir.path() / "journal");
  EXPECT_EQ(journal.finished_runs(), (std::set<std::string>{"0000-r0"}));
  EXPECT_EQ(journal.interrupted(), (std::set<std::string>{"0001-r0"}));
}

}  // namespace
}  // namespace jetchar::sweeps
