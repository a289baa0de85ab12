// Fault injection through the real executable: every command that writes (device set and
// restore, results merge, results export -o, report -o, sweep run and resume) is SIGKILLed at
// seeded random points of its run, and run on a full disk and in a read-only folder. After each
// fault the invariants are checked:
//  - a board's controls equal its snapshot from before the session once `device restore` ran;
//  - a store holds every run exactly once: a merge all of its input or none, a resumed sweep every
//    planned run once, each with the status it printed;
//  - an output file is the earlier one or the whole new one, with nothing left beside it;
//  - exit codes are the documented ones (1 for a full disk, 4 for a read-only folder).
// JETCHAR_FAULT_SEED sets the seed (default 42); each test prints its counts of faults injected,
// invariants checked and violations.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cli/exit_code.h"
#include "jetson/control/control_snapshot.h"
#include "sysfs/root.h"
#include "tests/cli/cli_integration.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/small_mount.h"

namespace jetchar::cli {
namespace {

using Clock = std::chrono::steady_clock;

using ::testing::HasSubstr;

/// (sweep, run id, board) -> status, as the store's runs table holds them.
using StoredRuns = std::map<std::tuple<std::string, std::string, std::string>, std::string>;

constexpr const char* kTwoRuns = R"(name: "two"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=64&classes=10" batch_size: 16 epochs: 1 max_minibatches: 2 device: "cpu" } }
axes { field: "workload.seed" values: ["1", "2"] }
)";

class FaultInjection : public CliIntegration {
 protected:
  void TearDown() override {
    std::printf("fault injection (seed %u): %d faults injected, %d invariants checked, %d violations\n", seed_, faults_,
                invariants_, violations_);
    RecordProperty("faults", faults_);
    RecordProperty("invariants", invariants_);
    RecordProperty("violations", violations_);
  }

  static unsigned seed_from_environment() {
    const char* text = std::getenv("JETCHAR_FAULT_SEED");
    return text != nullptr ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : 42u;
  }

  /// An invariant: counted, and a violation fails the test with `what`.
  void check(bool holds, const std::string& what) {
    ++invariants_;
    if (!holds) {
      ++violations_;
      ADD_FAILURE() << what;
    }
  }

  /// How long `args` takes when nothing stops it (the range the kill points are drawn from).
  Clock::duration duration_of(const std::vector<std::string>& args, int expected = kOk) {
    const auto began = Clock::now();
    const Outcome r = run(args);
    EXPECT_EQ(r.code, expected) << r.text();
    return Clock::now() - began;
  }

  /// Starts `args`, SIGKILLs it after a delay drawn from [0, `range`] (unless it ended first) and
  /// returns its status (128 + 9 when the kill landed).
  int killed_at_random(const std::vector<std::string>& args, Clock::duration range) {
    const auto delay = std::uniform_int_distribution<long>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(range).count())(random_);
    const pid_t child = jetchar::testing::spawn_jetchar(args, path("killed.out"), path("killed.err"));
    std::this_thread::sleep_for(std::chrono::microseconds(delay));
    ::kill(child, SIGKILL);
    ++faults_;
    return jetchar::testing::wait_exit_status(child);
  }

  /// The board's controls, read as `device snapshot` reads them.
  static std::string controls_of(const fs::path& board) {
    std::string text;
    for (const auto& entry : jetson::snapshot_controls(sysfs::Root(board)).entries)
      text += entry.path + "=" + entry.original;
    return text;
  }

  static StoredRuns runs_in(const fs::path& store) {
    StoredRuns runs;
    if (!fs::exists(store)) return runs;
    // Read-write: a read-only connection to a WAL store leaves -wal and -shm files behind, and an
    // immutable one would not see what a killed writer committed to its -wal.
    SQLite::Database db(store.string(), SQLite::OPEN_READWRITE);
    if (!db.tableExists("runs")) return runs;
    SQLite::Statement select(db, "SELECT sweep, run_id, device_id, status FROM runs");
    while (select.executeStep()) {
      runs[{select.getColumn(0).getString(), select.getColumn(1).getString(), select.getColumn(2).getString()}] =
          select.getColumn(3).getString();
    }
    return runs;
  }

  /// Names in `folder` other than the ones a finished command leaves there.
  static std::vector<std::string> leftovers(const fs::path& folder, const std::vector<std::string>& kept) {
    std::vector<std::string> extra;
    if (!fs::exists(folder)) return extra;
    for (const auto& name : names_in(folder)) {
      if (std::find(kept.begin(), kept.end(), name) == kept.end()) extra.push_back(name);
    }
    return extra;
  }

  unsigned seed_ = seed_from_environment();
  std::mt19937 random_{seed_};
  int faults_ = 0;
  int invariants_ = 0;
  int violations_ = 0;
};

// ---- the board ------------------------------------------------------------------------------------

std::vector<std::string> set_args(const fs::path& board, const fs::path& state) {
  return {"device",      "set", "--board",    kBoard, "--root",     board.string(), "--state-dir", state.string(),
          "--cpu-cores", "4",   "--gpu-freq", "612",  "--emc-freq", "2133",         "--dvfs",      "off"};
}

std::vector<std::string> restore_args(const fs::path& board, const fs::path& state) {
  return {"device", "restore", "--board", kBoard, "--root", board.string(), "--state-dir", state.string()};
}

TEST_F(FaultInjection, DeviceSetKilledAnywhereIsRestoredToTheBoardBeforeIt) {
  const fs::path board = path("board");
  const fs::path state = path("state");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const std::string before = controls_of(board);
  const auto range = duration_of(set_args(board, state));
  ASSERT_NE(controls_of(board), before) << "device set changed nothing";
  ASSERT_EQ(run(restore_args(board, state)).code, kOk);
  for (int point = 0; point < 60; ++point) {
    const int status = killed_at_random(set_args(board, state), range);
    const Outcome restored = run(restore_args(board, state));
    check(restored.code == kOk, fmt::format("point {} (set ended {}): restore: {}", point, status, restored.text()));
    check(controls_of(board) == before, fmt::format("point {}: the board differs from before the session", point));
    check(leftovers(state, {"lock"}).empty(),
          fmt::format("point {}: left in the state folder: {}", point, fmt::join(leftovers(state, {"lock"}), " ")));
  }
}

TEST_F(FaultInjection, DeviceRestoreKilledAnywhereFinishesWhenRunAgain) {
  const fs::path board = path("board");
  const fs::path state = path("state");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const std::string before = controls_of(board);
  ASSERT_EQ(run(set_args(board, state)).code, kOk);
  const auto range = duration_of(restore_args(board, state));
  for (int point = 0; point < 30; ++point) {
    ASSERT_EQ(run(set_args(board, state)).code, kOk);
    const int status = killed_at_random(restore_args(board, state), range);
    const Outcome again = run(restore_args(board, state));
    check(again.code == kOk, fmt::format("point {} (restore ended {}): {}", point, status, again.text()));
    check(controls_of(board) == before, fmt::format("point {}: the board differs from before the session", point));
    check(leftovers(state, {"lock"}).empty(), fmt::format("point {}: the journal is left", point));
  }
}

// ---- stores ---------------------------------------------------------------------------------------

TEST_F(FaultInjection, AMergeKilledAnywhereMergedAllOrNothing) {
  const fs::path contract = store_copy("contract");
  const StoredRuns contract_runs = runs_in(contract / "results.db");
  ASSERT_FALSE(contract_runs.empty());
  const fs::path spec = write("two.textproto", kTwoRuns);
  ASSERT_EQ(run({"sweep", "run", spec.string(), "--results", path("two").string(), "--board", kBoard}).code, kOk);
  const StoredRuns two_runs = runs_in(path("two") / "results.db");
  ASSERT_EQ(two_runs.size(), 2u);
  StoredRuns both = contract_runs;
  both.insert(two_runs.begin(), two_runs.end());

  const auto range = duration_of({"results", "merge", path("timed").string(), contract.string()});
  for (int point = 0; point < 40; ++point) {
    // Half into a new folder, half into a store that holds the two-run sweep already.
    const bool into_existing = point % 2 == 1;
    const fs::path out = path(fmt::format("merged-{}", point));
    if (into_existing) {
      ASSERT_EQ(run({"results", "merge", out.string(), path("two").string()}).code, kOk);
    }
    const int status = killed_at_random({"results", "merge", out.string(), contract.string()}, range);
    const StoredRuns found = runs_in(out / "results.db");
    const StoredRuns none = into_existing ? two_runs : StoredRuns{};
    const StoredRuns all = into_existing ? both : contract_runs;
    check(found == none || found == all,
          fmt::format("point {} (merge ended {}): the output holds {} runs: neither {} nor {}", point, status,
                      found.size(), none.size(), all.size()));
    const Outcome again = run({"results", "merge", out.string(), contract.string()});
    check(again.code == kOk, fmt::format("point {}: the merge run again: {}", point, again.text()));
    check(runs_in(out / "results.db") == all, fmt::format("point {}: after the merge ran again", point));
    check(leftovers(out, {"results.db", "lock"}).empty(),
          fmt::format("point {}: left: {}", point, fmt::join(leftovers(out, {"results.db", "lock"}), " ")));
  }
}

TEST_F(FaultInjection, AnExportOrReportKilledAnywhereLeavesTheEarlierFileOrTheWholeNewOne) {
  const fs::path store = store_copy();
  const fs::path reference_csv = path("reference.csv");
  const fs::path reference_html = path("reference.html");
  const auto export_range = duration_of({"results", "export", store.string(), "--csv", "-o", reference_csv.string()});
  const auto report_range = duration_of({"report", store.string(), "-o", reference_html.string()});
  const fs::path out_dir = path("out");
  fs::create_directories(out_dir);
  for (int point = 0; point < 60; ++point) {
    const bool report = point % 2 == 1;
    const fs::path out = out_dir / (report ? "report.html" : "runs.csv");
    const std::string reference = read_text(report ? reference_html : reference_csv);
    write(fs::relative(out, dir_.path()).string(), "earlier\n");
    const std::vector<std::string> args =
        report ? std::vector<std::string>{"report", store.string(), "-o", out.string()}
               : std::vector<std::string>{"results", "export", store.string(), "--csv", "-o", out.string()};
    const int status = killed_at_random(args, report ? report_range : export_range);
    const std::string found = read_text(out);
    // The report's title and time stamps are the same run to run; its timing text is not, so a
    // whole report is told by its closing tag and size.
    const bool whole =
        report ? found.ends_with("</html>\n") && found.size() > reference.size() / 2 : found == reference;
    check(found == "earlier\n" || whole, fmt::format("point {} ({} ended {}): a torn output of {} bytes", point,
                                                     report ? "report" : "export", status, found.size()));
    // A kill in the microseconds between naming the finished file and renaming it over the output
    // leaves that hidden name; the next write of the output removes it.
    if (!leftovers(out_dir, {out.filename().string()}).empty()) run(args);
    check(leftovers(out_dir, {out.filename().string()}).empty(),
          fmt::format("point {}: left: {}", point, fmt::join(leftovers(out_dir, {out.filename().string()}), " ")));
    fs::remove(out);
  }
}

TEST_F(FaultInjection, ASweepKilledAnywhereResumesWithEveryRunOnce) {
  const fs::path spec = write("two.textproto", kTwoRuns);
  const auto range =
      duration_of({"sweep", "run", spec.string(), "--results", path("timed").string(), "--board", kBoard});
  for (int point = 0; point < 10; ++point) {
    const fs::path results = path(fmt::format("results-{}", point));
    const int status =
        killed_at_random({"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard}, range);
    const StoredRuns partial = runs_in(results / "results.db");
    check(partial.size() <= 2, fmt::format("point {}: {} runs stored of 2", point, partial.size()));
    if (!fs::exists(results / "sweep.textproto")) {
      // Killed before the sweep took its folder: a run starts it afresh.
      check(partial.empty(), fmt::format("point {}: runs stored without the spec's copy", point));
      ASSERT_EQ(run({"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard}).code, kOk);
    } else {
      const Outcome resumed = run({"sweep", "resume", results.string(), "--board", kBoard});
      check(resumed.code == kOk, fmt::format("point {} (sweep ended {}): resume: {}", point, status, resumed.text()));
      check(contains(resumed.out, "2 of 2 runs stored"), fmt::format("point {}: {}", point, resumed.out));
    }
    const StoredRuns stored = runs_in(results / "results.db");
    check(stored.size() == 2, fmt::format("point {}: {} runs stored after the resume", point, stored.size()));
    for (const auto& [key, run_status] : stored) {
      check(run_status == "OK", fmt::format("point {}: run {} is {}", point, std::get<1>(key), run_status));
    }
    const Outcome list = run({"results", "list", results.string()});
    check(contains(list.out, "2 runs in"), fmt::format("point {}: results list says {}", point, list.out));
  }
}

// ---- a full disk and a read-only folder -----------------------------------------------------------

TEST_F(FaultInjection, AFullDiskFailsWithStatusOneAndLosesNothing) {
  const testing::SmallMount mount(512);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  const fs::path store = store_copy();
  // An earlier export on the disk, which a failed one must leave as it was.
  ASSERT_EQ(run({"results", "export", store.string(), "--csv", "-o", (mount.path() / "runs.csv").string()}).code, kOk);
  const std::string earlier = read_text(mount.path() / "runs.csv");
  mount.fill();
  const fs::path spec = write("two.textproto", kTwoRuns);
  const std::vector<std::vector<std::string>> writes = {
      {"results", "export", store.string(), "--csv", "-o", (mount.path() / "runs.csv").string()},
      {"report", store.string(), "-o", (mount.path() / "report.html").string()},
      {"results", "merge", (mount.path() / "merged").string(), store.string()},
      {"sweep", "run", spec.string(), "--results", (mount.path() / "sweep").string(), "--board", kBoard},
  };
  for (const auto& args : writes) {
    ++faults_;
    const Outcome r = run(args);
    check(r.code == kFailure, fmt::format("jetchar {}: {}", fmt::join(args, " "), r.text()));
    check(r.err.find("No space left") != std::string::npos || r.err.find("full") != std::string::npos,
          fmt::format("jetchar {}: the message does not say the disk is full: {}", fmt::join(args, " "), r.err));
  }
  check(read_text(mount.path() / "runs.csv") == earlier, "the earlier export changed");
  const auto left = leftovers(mount.path(), {"filler", "runs.csv", "sweep"});
  check(left.empty(), fmt::format("left on the full disk: {}", fmt::join(left, " ")));
  check(leftovers(mount.path() / "sweep", {"lock"}).empty(),
        fmt::format("left in the sweep's folder: {}", fmt::join(leftovers(mount.path() / "sweep", {"lock"}), " ")));
}

TEST_F(FaultInjection, AReadOnlyFolderIsStatusFourAndLosesNothing) {
  const testing::SmallMount mount(512);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  const fs::path store = store_copy();
  const fs::path board = path("board");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const std::string controls = controls_of(board);
  fs::create_directories(mount.path() / "results");
  mount.set_read_only(true);
  const fs::path spec = write("two.textproto", kTwoRuns);
  const std::vector<std::vector<std::string>> writes = {
      {"results", "export", store.string(), "--csv", "-o", (mount.path() / "runs.csv").string()},
      {"report", store.string(), "-o", (mount.path() / "report.html").string()},
      {"results", "merge", (mount.path() / "results").string(), store.string()},
      {"sweep", "run", spec.string(), "--results", (mount.path() / "results").string(), "--board", kBoard},
      {"device", "set", "--board", kBoard, "--root", board.string(), "--state-dir", (mount.path() / "state").string(),
       "--cpu-cores", "4"},
  };
  for (const auto& args : writes) {
    ++faults_;
    const Outcome r = run(args);
    check(r.code == kPermission, fmt::format("jetchar {}: {}", fmt::join(args, " "), r.text()));
  }
  check(controls_of(board) == controls, "device set changed the board without a journal");
  mount.set_read_only(false);
  check(names_in(mount.path()) == std::vector<std::string>{"results"}, "a read-only folder gained files");
}

}  // namespace
}  // namespace jetchar::cli
