// Nothing a user stored is lost or misstated, whatever they do beside jetchar, checked through the
// real executable on a simulated board: an output aimed at an input, two writers of one results
// folder, a database of another program, a damaged change journal, Ctrl-C inside a long run.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/exit_code.h"
#include "tests/cli/cli_integration.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"

namespace jetchar::cli {
namespace {

using ::testing::HasSubstr;

/// Eight short runs on the simulated board: long enough to start a second command beside it.
constexpr const char* kEightRuns = R"(name: "eight"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 16 epochs: 2 max_minibatches: 4 device: "cpu" } }
axes { field: "workload.seed" values: ["1", "2", "3", "4", "5", "6", "7", "8"] }
)";

class NothingLost : public CliIntegration {
 protected:
  /// Waits until `file` holds `text` (or the child ended); false when it never did.
  static bool wait_for(const fs::path& file, const std::string& text, pid_t child) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (std::chrono::steady_clock::now() < give_up) {
      if (contains(read_text(file), text)) return true;
      if (::waitpid(child, nullptr, WNOHANG) == child) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  /// Starts `sweep run SPEC --results RESULTS` on the simulated board, its log to `err`.
  static pid_t start_sweep(const fs::path& spec, const fs::path& results, const fs::path& err) {
    return jetchar::testing::spawn_jetchar(
        {"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard}, "/dev/null", err);
  }

  /// The controls of the board kept in `board` (`device snapshot`'s text), to compare before and
  /// after a session.
  std::string controls_of(const fs::path& board, const std::string& name) {
    const fs::path file = path(name);
    const Outcome taken = run({"device", "snapshot", "--board", kBoard, "--root", board.string(), "--state-dir",
                               path("snapshot-state").string(), "-o", file.string()});
    EXPECT_EQ(taken.code, kOk) << taken.text();
    return read_text(file);
  }
};

// ---- an output that is an input -----------------------------------------------------------------

TEST_F(NothingLost, AReportOrExportOntoItsOwnStoreIsRefusedAndTheStoreKept) {
  const fs::path store = store_copy();
  const auto before = tree(store);
  fs::create_symlink(store / "results.db", path("link.db"));
  const std::vector<std::vector<std::string>> refused = {
      {"report", store.string(), "-o", (store / "results.db").string()},
      {"report", store.string(), "-o", path("link.db").string()},
      {"report", (store / "results.db").string(), "-o", (store / "journal").string()},
      {"results", "export", store.string(), "--csv", "-o", (store / "results.db").string()},
      {"results", "export", store.string(), "--jsonl", "-o", path("link.db").string()},
      {"results", "export", store.string(), "--csv", "-o", (store / "sweep.textproto").string()},
  };
  for (const auto& args : refused) {
    const Outcome r = run(args);
    EXPECT_EQ(r.code, kBadInput) << fmt::format("jetchar {}\n", fmt::join(args, " ")) << r.text();
    EXPECT_THAT(r.err, HasSubstr("nothing was written")) << r.text();
    EXPECT_EQ(tree(store), before) << fmt::format("jetchar {} changed the store", fmt::join(args, " "));
  }
  EXPECT_EQ(run({"results", "list", store.string()}).code, kOk);
  // A report beside the store is written, and nothing else is left there.
  EXPECT_EQ(run({"report", store.string(), "-o", path("report.html").string()}).code, kOk);
  EXPECT_EQ(names_in(dir_.path()), (std::vector<std::string>{"io", "link.db", "report.html", "store"}));
}

// ---- two writers ----------------------------------------------------------------------------------

TEST_F(NothingLost, ASecondSweepOnOneResultsFolderIsRefusedNamingTheFirstAndWaitWaits) {
  // A second's cool-down after each run keeps the first sweep writing for 8 s: its runs alone end
  // before a second jetchar has started.
  const fs::path spec = write("eight.textproto", R"(name: "eight"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 16 epochs: 2 max_minibatches: 4 device: "cpu" }
  cooldown { seconds: 1 }
}
axes { field: "workload.seed" values: ["1", "2", "3", "4", "5", "6", "7", "8"] }
)");
  const fs::path results = path("results");
  const std::vector<std::string> args = {"sweep",          "run",     spec.string(), "--results",
                                         results.string(), "--board", kBoard};
  const fs::path first_err = path("first.err");
  const pid_t first = jetchar::testing::spawn_jetchar(args, path("first.out"), first_err);
  ASSERT_TRUE(wait_for(first_err, "run 0000-r0 (1/8)", first)) << read_text(first_err);

  const Outcome second = run(args);
  EXPECT_EQ(second.code, kFailure) << second.text();
  EXPECT_THAT(second.err,
              HasSubstr(fmt::format("is in use by another jetchar process (pid {}: jetchar sweep run", first)));
  EXPECT_THAT(second.err, HasSubstr("--wait"));

  // --wait runs once the first is done: every run is stored already, none runs twice.
  std::vector<std::string> waiting = args;
  waiting.push_back("--wait");
  const Outcome waited = run(waiting);
  EXPECT_EQ(jetchar::testing::wait_exit_status(first), kOk) << read_text(first_err);
  EXPECT_EQ(waited.code, kOk) << waited.text();
  EXPECT_THAT(waited.out, HasSubstr("8 of 8 runs stored (0 run now"));
  EXPECT_THAT(read_text(first_err), ::testing::Not(HasSubstr("interrupted by an earlier process")));
}

TEST_F(NothingLost, ASweepKilledWithSigkillResumesAtOnce) {
  const fs::path spec = write("eight.textproto", kEightRuns);
  const fs::path results = path("results");
  const fs::path err = path("killed.err");
  const pid_t killed = start_sweep(spec, results, err);
  ASSERT_TRUE(wait_for(err, "run 0001-r0 (2/8)", killed)) << read_text(err);
  ::kill(killed, SIGKILL);
  EXPECT_EQ(jetchar::testing::wait_exit_status(killed), 128 + SIGKILL);
  // The lock died with its holder: the resume neither waits nor is refused.
  const Outcome resumed = run({"sweep", "resume", results.string(), "--board", kBoard});
  EXPECT_EQ(resumed.code, kOk) << resumed.text();
  EXPECT_THAT(resumed.out, HasSubstr("8 of 8 runs stored"));
}

TEST_F(NothingLost, AMergeIntoAFolderASweepWritesIsRefused) {
  const fs::path store = store_copy();
  const fs::path spec = write("eight.textproto", kEightRuns);
  const fs::path results = path("results");
  const fs::path err = path("sweep.err");
  const pid_t sweep = start_sweep(spec, results, err);
  ASSERT_TRUE(wait_for(err, "run 0000-r0 (1/8)", sweep)) << read_text(err);
  const Outcome merge = run({"results", "merge", results.string(), store.string()});
  EXPECT_EQ(merge.code, kFailure) << merge.text();
  EXPECT_THAT(merge.err, HasSubstr(fmt::format("(pid {}", sweep)));
  EXPECT_EQ(jetchar::testing::wait_exit_status(sweep), kOk) << read_text(err);
}

TEST_F(NothingLost, ASecondProcessControllingTheBoardIsRefusedNamingTheFirst) {
  const fs::path board = path("board");
  const fs::path state = path("state");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const fs::path out = path("hold.out");
  const pid_t holder =
      jetchar::testing::spawn_jetchar({"device", "set", "--board", kBoard, "--root", board.string(), "--state-dir",
                                       state.string(), "--cpu-cores", "4", "--hold", "0"},
                                      out, path("hold.err"));
  ASSERT_TRUE(wait_for(out, "holding until SIGINT", holder)) << read_text(path("hold.err"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"device", "set", "--board", kBoard, "--root", board.string(), "--state-dir",
                                 state.string(), "--cpu-cores", "2"},
        std::vector<std::string>{"device", "restore", "--board", kBoard, "--root", board.string(), "--state-dir",
                                 state.string()}}) {
    const Outcome second = run(args);
    EXPECT_EQ(second.code, kFailure) << second.text();
    EXPECT_THAT(second.err,
                HasSubstr(fmt::format("in use by another jetchar process (pid {}: jetchar device set", holder)));
  }
  ::kill(holder, SIGINT);
  EXPECT_EQ(jetchar::testing::wait_exit_status(holder), kInterrupted);
  EXPECT_THAT(read_text(out), HasSubstr("restored "));
}

/// Waits until `child` catches SIGINT (its handler installed: /proc/PID/status SigCgt), so that a
/// signal sent then is the command's to handle, not the default action's.
bool catches_sigint(pid_t child) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (std::chrono::steady_clock::now() < give_up) {
    std::ifstream status(fmt::format("/proc/{}/status", child));
    std::string line;
    while (std::getline(status, line)) {
      if (line.starts_with("SigCgt:") && (std::stoull(line.substr(7), nullptr, 16) & (1ULL << (SIGINT - 1))) != 0)
        return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST_F(NothingLost, CtrlCWhileAMergeWaitsForTheOutputsWriterMergesNothingAndExits130) {
  const fs::path store = store_copy();
  const fs::path out = path("merged");
  fs::create_directories(out);
  // Another writer holds the output folder (this test, through the same lock a sweep takes).
  const int held = ::open((out / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  const fs::path err = path("merge.err");
  const pid_t merge = jetchar::testing::spawn_jetchar({"results", "merge", out.string(), store.string(), "--wait"},
                                                      path("merge.out"), err);
  ASSERT_TRUE(catches_sigint(merge));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into its wait (no assertion rests on it)
  ::kill(merge, SIGINT);
  EXPECT_EQ(jetchar::testing::wait_exit_status(merge), kInterrupted) << read_text(err);
  EXPECT_THAT(read_text(err), HasSubstr("results merge stopped by a signal: nothing was merged into"));
  EXPECT_EQ(names_in(out), std::vector<std::string>{"lock"});
  ::close(held);
}

// ---- another program's database ----------------------------------------------------------------

TEST_F(NothingLost, ADatabaseOfAnotherProgramIsNeverWritten) {
  const fs::path folder = path("theirs");
  fs::create_directories(folder);
  {
    SQLite::Database db((folder / "results.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO runs (label) VALUES ('mine')");
  }
  const auto before = tree(folder);
  const fs::path spec = write("eight.textproto", kEightRuns);
  const Outcome sweep = run({"sweep", "run", spec.string(), "--results", folder.string(), "--board", kBoard});
  EXPECT_EQ(sweep.code, kBadInput) << sweep.text();
  EXPECT_THAT(sweep.err, HasSubstr("not a jetchar results store (it has no table 'meta'; its tables: runs)"));
  const auto after = tree(folder);
  EXPECT_EQ(after.at("results.db"), before.at("results.db")) << "the foreign database was changed";

  const Outcome merge = run({"results", "merge", folder.string(), store_copy().string()});
  EXPECT_EQ(merge.code, kBadInput) << merge.text();
  EXPECT_EQ(tree(folder).at("results.db"), before.at("results.db"));
  const Outcome list = run({"results", "list", folder.string()});
  EXPECT_EQ(list.code, kBadInput) << list.text();
  EXPECT_THAT(list.err, HasSubstr("has no table 'meta'"));
}

// ---- a damaged change journal -------------------------------------------------------------------

class DamagedJournal : public NothingLost, public ::testing::WithParamInterface<std::string> {};

// After `device set`, the journal is damaged as a disk or a person may damage it: one byte of its
// last complete record flipped, or the file cut in half. The restore says so (exit 1), keeps the
// journal, and brings every control back from the snapshot taken before the session.
TEST_P(DamagedJournal, TheBoardComesBackFromTheSnapshotAndTheStatusSaysSo) {
  const fs::path board = path("board");
  const fs::path state = path("state");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const std::string before = controls_of(board, "before.snapshot");
  const Outcome set = run({"device", "set", "--board", kBoard, "--root", board.string(), "--state-dir", state.string(),
                           "--cpu-cores", "4", "--gpu-freq", "612", "--emc-freq", "2133", "--dvfs", "off"});
  ASSERT_EQ(set.code, kOk) << set.text();
  ASSERT_NE(controls_of(board, "during.snapshot"), before) << "device set changed nothing";

  const fs::path journal = state / "change-journal";
  std::string text = read_text(journal);
  if (GetParam() == "flip") {
    const std::size_t last_line = text.rfind('\n', text.size() - 2) + 1;
    text[last_line + 3] ^= 0x01;  // inside the path of the last record
  } else {
    text.resize(text.size() / 2);
    if (text.back() == '\n') text.pop_back();  // a cut inside a record, not between two
  }
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << text;

  const Outcome restore =
      run({"device", "restore", "--board", kBoard, "--root", board.string(), "--state-dir", state.string()});
  EXPECT_EQ(restore.code, kFailure) << restore.text();
  if (GetParam() == "flip") {
    EXPECT_THAT(restore.err, HasSubstr("line "));
    EXPECT_THAT(restore.err, HasSubstr("checksum fails"));
    EXPECT_THAT(restore.err, HasSubstr("change-journal.damaged"));
    EXPECT_EQ(read_text(state / "change-journal.damaged"), text) << "the damaged journal was not kept as it was";
  } else {
    EXPECT_THAT(restore.err, HasSubstr("snapshot"));
  }
  EXPECT_EQ(controls_of(board, "after.snapshot"), before) << restore.text();
  // Nothing is pending afterwards: a new session starts a journal of its own.
  const Outcome again =
      run({"device", "restore", "--board", kBoard, "--root", board.string(), "--state-dir", state.string()});
  EXPECT_EQ(again.code, kOk) << again.text();
  EXPECT_THAT(again.out, HasSubstr("nothing to restore"));
}

INSTANTIATE_TEST_SUITE_P(FlippedOrCut, DamagedJournal, ::testing::Values("flip", "cut"));

// ---- Ctrl-C inside a long run --------------------------------------------------------------------

TEST_F(NothingLost, CtrlCInsideALongRunRestoresTheBoardAtOnceAndStoresTheRunAsInterrupted) {
  const fs::path board = path("board");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const std::string before = controls_of(board, "before.snapshot");
  // Hours of minibatches: only an interrupt checked inside the run ends it in time.
  const fs::path spec = write("long.textproto", R"(name: "long"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 16 epochs: 10000 device: "cpu" }
  device { cpu_cores: 4 }
}
)");
  const fs::path results = path("results");
  const auto began = std::chrono::steady_clock::now();
  const Outcome stopped = start({"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard,
                                 "--root", board.string(), "--state-dir", path("state").string()},
                                [&](const Outcome& r) {
                                  return contains(r.err, "power mode: custom: 4 cores") &&
                                         std::chrono::steady_clock::now() - began > std::chrono::seconds(4);
                                });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_THAT(stopped.err, HasSubstr("stored as INTERRUPTED"));
  EXPECT_EQ(controls_of(board, "after.snapshot"), before) << stopped.text();
  const Outcome list = run({"results", "list", results.string()});
  EXPECT_THAT(list.out, HasSubstr("INTERRUPTED"));
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr(" OK ")));
}

TEST_F(NothingLost, CtrlCInsideTrainPrintsTheEpochsItFinishedAndExits130) {
  const auto began = std::chrono::steady_clock::now();
  const Outcome stopped =
      start({"train", "--model", "lenet5", "--dataset", "synthetic:1x28x28?samples=256&classes=10", "--batch", "16",
             "--epochs", "10000"},
            [&](const Outcome&) { return std::chrono::steady_clock::now() - began > std::chrono::seconds(4); });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_THAT(stopped.err, HasSubstr("training lenet5 stopped by a signal after"));
  EXPECT_THAT(stopped.out, HasSubstr("epoch"));  // the table of what was measured
}

// A phased pretraining run stopped inside its first phase: the phases after it never start, and
// what the first measured is printed with its phase.
TEST_F(NothingLost, CtrlCInsideAPhasedTrainStopsBeforeTheNextPhase) {
  const auto corpus = path("corpus.txt");
  {
    std::ofstream text(corpus);
    for (int i = 0; i < 50; ++i) text << "the cat sat on the mat .\nthe dog ran .\n\n";
  }
  std::ofstream(path("vocab.txt")) << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\ndog\nran\n.\n";
  const auto began = std::chrono::steady_clock::now();
  const Outcome stopped =
      start({"train", "--model", "bert-tiny-mlm", "--dataset", "corpus:" + corpus.string(), "--batch", "2", "--threads",
             "1", "--phase", "seq=16,steps=100000000", "--phase", "seq=32,steps=10"},
            [&](const Outcome&) { return std::chrono::steady_clock::now() - began > std::chrono::seconds(4); });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_THAT(stopped.err, HasSubstr("finished epoch(s) of 2 phase(s)"));
  EXPECT_THAT(stopped.out, HasSubstr("  phase 1"));
  EXPECT_THAT(stopped.out, ::testing::Not(HasSubstr("  phase 2")));
}

TEST_F(NothingLost, CtrlCInsideInferPrintsWhatWasTimedAndExits130) {
  const auto began = std::chrono::steady_clock::now();
  const Outcome stopped =
      start({"infer", "--model", "lenet5", "--batch", "1,2", "--duration", "3600"},
            [&](const Outcome&) { return std::chrono::steady_clock::now() - began > std::chrono::seconds(4); });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_THAT(stopped.err, HasSubstr("inference lenet5 stopped by a signal: 1 of 2 batch size(s) timed"));
  EXPECT_THAT(stopped.out, HasSubstr("p99 ms"));
}

TEST_F(NothingLost, DeviceInfoOnAMissingRootCreatesNothing) {
  const fs::path missing = path("no/such/root");
  const Outcome info = run({"device", "info", "--root", missing.string()});
  EXPECT_EQ(info.code, kBadInput) << info.text();
  EXPECT_FALSE(fs::exists(path("no")));
}

// ---- endless and hostile inputs ------------------------------------------------------------------

struct HostileInput {
  std::string name;
  /// "{spec}" is replaced by the spec written from `spec`, "{store}" by the contract sweep's
  /// results (a copy), "{modes}" by a modes file written from `spec`.
  std::vector<std::string> args;
  std::string spec;  ///< empty: none written
  int code;
  std::string message;
};

// Named by its case in test output (gtest would print the struct's bytes).
void PrintTo(const HostileInput& input, std::ostream* out) { *out << input.name; }

class HostileInputs : public NothingLost, public ::testing::WithParamInterface<HostileInput> {};

TEST_P(HostileInputs, AreRefusedWithTheirExitCodeAndAMessageNamingThem) {
  const HostileInput& input = GetParam();
  std::vector<std::string> args = input.args;
  for (auto& arg : args) {
    if (arg == "{spec}") arg = write("spec.textproto", input.spec).string();
    if (arg == "{modes}") arg = write("modes.csv", input.spec).string();
    if (arg == "{store}") arg = store_copy().string();
  }
  const Outcome r = run(args);
  EXPECT_EQ(r.code, input.code) << r.text();
  EXPECT_THAT(r.err, HasSubstr(input.message)) << r.text();
  EXPECT_LT(r.err.size(), 4000u) << "a message floods the terminal";
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("[libprotobuf")));
}

const std::string kBase =
    R"(base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=64&classes=10" batch_size: 16 epochs: 1 device: "cpu" } })"
    "\n";

INSTANTIATE_TEST_SUITE_P(
    Corpus, HostileInputs,
    ::testing::Values(
        HostileInput{
            "DevZeroSpec", {"sweep", "plan", "/dev/zero", "--board", kBoard}, "", kBadInput, "larger than 16 MiB"},
        HostileInput{
            "DevUrandomSpec", {"sweep", "plan", "/dev/urandom", "--board", kBoard}, "", kBadInput, "/dev/urandom"},
        HostileInput{"EndlessRange",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"r\"\n" + kBase + "axes { field: \"workload.seed\" range { from: 0 to: 1e12 step: 1 } }\n",
                     kBadInput,
                     "more than its limit of 10000"},
        HostileInput{"AFieldOnTwoAxes",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"a\"\n" + kBase +
                         "axes { field: \"device.gpu_freq_mhz\" values: [\"306\"] }\n"
                         "axes { field: \"device.gpu_freq_mhz\" values: [\"612\"] }\n",
                     kBadInput,
                     "field 'device.gpu_freq_mhz' is on axes 1 and 2"},
        HostileInput{"AValueTwiceOnAnAxis",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"v\"\n" + kBase + "axes { field: \"device.gpu_freq_mhz\" values: [\"612\", \"612.0\"] }\n",
                     kBadInput,
                     "lists the value 612 twice"},
        HostileInput{"ANameThatLeavesTheResultsFolder",
                     {"sweep", "run", "{spec}", "--board", kBoard},
                     "name: \"../../etc/x\"\n" + kBase,
                     kBadInput,
                     "holds a path separator"},
        HostileInput{"ModesFromDevZero",
                     {"analyze", "predict", "{store}", "--modes", "/dev/zero"},
                     "",
                     kBadInput,
                     "is larger than 256 MiB"},
        HostileInput{"AModeTwiceInAModesFile",
                     {"analyze", "predict", "{store}", "--modes", "{modes}", "--model", "nnls"},
                     "mode,cpu_cores,cpu_freq_khz,gpu_freq_hz,emc_freq_hz\n"
                     "a,8,1728000,612000000,3199000000\nb,8,1728000,612000000,3199000000\n",
                     kBadInput,
                     "is listed on line 2 already"},
        HostileInput{"ABudgetNoModeMeets",
                     {"analyze", "choose", "{store}", "--max-time", "0.000001"},
                     "",
                     kFailure,
                     "no measured mode that meets the budget"},
        HostileInput{"ADurationBeyondTheClock",
                     {"monitor", "--board", kBoard, "--duration", "1e10"},
                     "",
                     kBadInput,
                     "'1e10' is not valid; valid: a number from 0 to 100000000"},
        HostileInput{"ANegativeSeed",
                     {"train", "--model", "lenet5", "--dataset", "synthetic:1x28x28", "--seed", "-1"},
                     "",
                     kBadInput,
                     "'-1' is not valid; valid: an integer from 0 to 18446744073709551615: a seed"},
        HostileInput{"AnEnumValueThatIsNot",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"e\"\n" + kBase + "axes { field: \"cache\" values: [\"COLD\"] }\n",
                     kBadInput,
                     "COLD"},
        HostileInput{"AMistypedCommand", {"sweeps"}, "", kUsage, "unknown command 'sweeps'; did you mean 'sweep'?"},
        HostileInput{"AHugeModelName",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"m\"\nbase { workload { model: \"" + std::string(1000000, 'x') +
                         "\" dataset: \"synthetic:1x28x28\" batch_size: 16 } }\n",
                     kBadInput,
                     "more bytes left out"},
        HostileInput{"AHugeName",
                     {"sweep", "plan", "{spec}", "--board", kBoard},
                     "name: \"" + std::string(100000, 'n') + "\"\n" + kBase,
                     kBadInput,
                     "is 100000 bytes long; at most 100"}),
    [](const ::testing::TestParamInfo<HostileInput>& info) { return info.param.name; });

TEST_F(NothingLost, ASpecWithAByteOrderMarkIsRead) {
  const fs::path spec = write("bom.textproto",
                              "\xEF\xBB\xBF"
                              "name: \"bom\"\n" +
                                  kBase);
  const Outcome plan = run({"sweep", "plan", spec.string(), "--board", kBoard});
  EXPECT_EQ(plan.code, kOk) << plan.text();
}

}  // namespace
}  // namespace jetchar::cli
