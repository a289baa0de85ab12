// The command line keeps its contract (cli/exit_code.h), checked on the real jetchar executable:
//  - every command answers success, a usage error, bad input, an unreadable file and (where it
//    runs long enough: sweep run, monitor, device set --hold, meter simulate/read) SIGINT with the
//    documented exit code — an interrupted command exits by itself with 130 after its summary, it
//    is not killed by the signal;
//  - every read command (results list/show/export, analyze *, report, device info) run on a copy
//    of a store leaves the copy byte-identical, with no -wal, -shm or -journal file beside it;
//  - every rejected command leaves its output paths as they were.
// Boards are simulated (sim:agx-orin-r36), sweeps tiny, and the one store the read commands use is
// swept once per jetchar binary and kept in the build tree (contract_store()).
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/exit_code.h"
#include "tests/cli/cli_integration.h"
#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class CliContractIntegration : public CliIntegration {};

// ---- the table ---------------------------------------------------------------------------------

TEST_F(CliContractIntegration, HelpShowsTheExitCodeTableAndUsageErrorsExitTwo) {
  const Outcome help = run({"--help"});
  EXPECT_EQ(help.code, kOk) << help.text();
  EXPECT_THAT(help.out, HasSubstr(kExitCodeHelp));
  for (const std::string line : {"  2    usage", "  3    bad input", "  4    permission", "  130  interrupted"}) {
    EXPECT_THAT(help.out, HasSubstr(line));
  }
  EXPECT_EQ(run({"--version"}).code, kOk);
  // Not CLI11's own codes (105-114): no subcommand, an unknown one, an unknown option, a missing
  // argument, an extra one, options that exclude each other.
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"bogus"},
                                               {"results", "list", "--nope"},
                                               {"results", "show"},
                                               {"models", "lenet5", "--json", "--bogus"},
                                               {"device"},
                                               {"results", "list", "a", "b"},
                                               {"monitor", "--csv", "a.csv", "--jsonl", "a.jsonl"}}) {
    const Outcome r = run(args);
    EXPECT_EQ(r.code, kUsage) << fmt::format("jetchar {}\n", fmt::join(args, " ")) << r.text();
    EXPECT_THAT(r.err, HasSubstr("jetchar: error: "));
    EXPECT_THAT(r.err, HasSubstr("--help"));
  }
}

// ---- models, data, train, infer -----------------------------------------------------------------

TEST_F(CliContractIntegration, ModelsDataTrainInfer) {
  EXPECT_EQ(run({"models", "lenet5"}).code, kOk);
  EXPECT_EQ(run({"models", "no-such-model"}).code, kBadInput);

  EXPECT_EQ(run({"data", "inspect", "synthetic:1x28x28?samples=16&classes=10"}).code, kOk);
  EXPECT_EQ(run({"data", "inspect", "no-such-kind:/x"}).code, kBadInput);
  EXPECT_EQ(run({"data", "inspect", "fashion-mnist:" + path("missing").string()}).code, kBadInput);
  EXPECT_EQ(run({"data", "cache"}).code, kUsage);  // needs exactly one of --residency, --evict, --drop
  EXPECT_EQ(run({"data", "bench", "--dataset", "synthetic:1x28x28?samples=16", "--batch", "0"}).code, kBadInput);

  const std::vector<std::string> train = {
      "train",    "--model", "lenet5",        "--dataset", "synthetic:1x28x28?samples=64&classes=10", "--batch", "16",
      "--epochs", "1",       "--max-batches", "2"};
  const Outcome trained = run(train);
  EXPECT_EQ(trained.code, kOk) << trained.text();
  for (const std::string bad : {"0", "-3", "nan", "many"}) {
    auto args = train;
    args[6] = bad;  // --batch
    EXPECT_EQ(run(args).code, kBadInput) << "--batch " << bad;
  }
  EXPECT_EQ(run({"train", "--model", "lenet5"}).code, kUsage);  // --dataset is required
  EXPECT_EQ(run({"train", "--model", "lenet5", "--dataset", "fashion-mnist:" + path("missing").string()}).code,
            kBadInput);

  EXPECT_EQ(run({"infer", "--model", "lenet5", "--queries", "2", "--warmup", "0"}).code, kOk);
  EXPECT_EQ(run({"infer", "--model", "lenet5", "--duration", "nan"}).code, kBadInput);
  EXPECT_EQ(run({"infer", "--model", "lenet5", "--duration", "-1"}).code, kBadInput);
  EXPECT_EQ(run({"infer", "--batch", "4"}).code, kUsage);  // --model is required
}

// ---- device ------------------------------------------------------------------------------------

TEST_F(CliContractIntegration, DeviceInfoAcceptsASimulatedBoardInADirectoryAsTheOtherCommandsDo) {
  const Outcome info = run({"device", "info", "--board", kBoard});
  EXPECT_EQ(info.code, kOk) << info.text();
  const fs::path board = path("board");
  const Outcome modes = run({"device", "modes", "--board", kBoard, "--root", board.string()});
  ASSERT_EQ(modes.code, kOk) << modes.text();
  const Outcome in_dir = run({"device", "info", "--board", kBoard, "--root", board.string()});
  EXPECT_EQ(in_dir.code, kOk) << in_dir.text();
  EXPECT_THAT(in_dir.out, HasSubstr("living in " + board.string()));
  EXPECT_EQ(run({"device", "info", "--root", board.string(), "--json"}).code, kOk);
  EXPECT_EQ(run({"device", "info", "--board", "sim:no-such-fixture"}).code, kBadInput);
  EXPECT_EQ(run({"device", "info", "--board", "mainframe"}).code, kBadInput);
  EXPECT_EQ(run({"device", "info", "--root", path("missing").string()}).code, kBadInput);
  EXPECT_EQ(run({"device", "info", "--bogus"}).code, kUsage);
  EXPECT_EQ(run({"device", "modes", "--bogus"}).code, kUsage);
  EXPECT_EQ(run({"device", "modes", "--board", "mainframe"}).code, kBadInput);
  // Reading a board changes nothing on it: the simulated board in its directory, and the same
  // tree read as a plain root.
  const auto before = tree(board);
  EXPECT_EQ(run({"device", "info", "--root", board.string()}).code, kOk);
  EXPECT_EQ(run({"device", "info", "--board", kBoard, "--root", board.string(), "--json"}).code, kOk);
  EXPECT_EQ(run({"device", "modes", "--root", board.string()}).code, kOk);
  EXPECT_EQ(tree(board), before);
}

TEST_F(CliContractIntegration, DeviceSetRefusesValuesThatWouldHoldForeverAndSaysWhatDvfsDoes) {
  for (const std::string hold : {"-1", "nan", "inf", "soon"}) {
    const Outcome r = run({"device", "set", "--board", kBoard, "--cpu-cores", "4", "--hold", hold});
    EXPECT_EQ(r.code, kBadInput) << "--hold " << hold << "\n" << r.text();
    EXPECT_THAT(r.err, HasSubstr("--hold"));
    EXPECT_THAT(r.err, Not(HasSubstr("179769313486231570")));  // no 309-digit bound
  }
  EXPECT_EQ(run({"device", "set", "--board", kBoard, "--mode", "0", "--cpu-cores", "4"}).code, kUsage);
  EXPECT_EQ(run({"device", "set", "--board", kBoard}).code, kUsage);
  EXPECT_EQ(run({"device", "set", "--board", kBoard, "--gpu-freq", "999"}).code, kBadInput);
  // With DVFS on, the GPU clock reads wherever the governor put it: the output says so instead of
  // "applied: GPU 918 MHz" followed by a bare "GPU frequency: 306 MHz".
  const Outcome dvfs = run({"device", "set", "--board", kBoard, "--gpu-freq", "918", "--dvfs", "on"});
  EXPECT_EQ(dvfs.code, kOk) << dvfs.text();
  EXPECT_THAT(dvfs.out, HasSubstr("DVFS is on: the governor moves it between"));
}

TEST_F(CliContractIntegration, DeviceSetHoldEndsWithStatus130OnSigintAndRestoresTheBoard) {
  const fs::path board = path("board");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const auto before = tree(board / "sys/devices/system/cpu");
  const Outcome held =
      start({"device", "set", "--board", kBoard, "--root", board.string(), "--cpu-cores", "4", "--hold", "0"},
            [](const Outcome& r) { return contains(r.out, "holding until SIGINT"); });
  EXPECT_EQ(held.killed_by, 0) << held.text();
  EXPECT_EQ(held.code, kInterrupted) << held.text();
  EXPECT_THAT(held.out, HasSubstr("restored "));
  EXPECT_EQ(tree(board / "sys/devices/system/cpu"), before);
}

TEST_F(CliContractIntegration, DeviceSnapshotAndRestore) {
  // A temporary simulated board is deleted when the command ends: its snapshot would name a root
  // that no longer exists. Refused, and the output file is not created.
  const fs::path snapshot = path("snapshot.journal");
  const Outcome temporary = run({"device", "snapshot", "--board", kBoard, "-o", snapshot.string()});
  EXPECT_EQ(temporary.code, kUsage) << temporary.text();
  EXPECT_THAT(temporary.err, HasSubstr("--root DIR"));
  EXPECT_FALSE(fs::exists(snapshot));

  const fs::path board = path("board");
  const Outcome taken =
      run({"device", "snapshot", "--board", kBoard, "--root", board.string(), "-o", snapshot.string()});
  EXPECT_EQ(taken.code, kOk) << taken.text();
  EXPECT_EQ(run({"device", "restore", "--root", board.string(), snapshot.string()}).code, kOk);
  EXPECT_EQ(run({"device", "restore", "--root", board.string(), path("missing.journal").string()}).code, kBadInput);
  EXPECT_EQ(run({"device", "restore", "--root", board.string()}).code, kOk);  // nothing pending

  // A journal that is garbage is not "torn by the crash": a damaged journal, a failure (exit 1),
  // and kept where it is when there is no snapshot of the session to restore from.
  const fs::path state = path("state");
  const fs::path journal = write("state/change-journal", "garbage\n");
  const Outcome garbage = run({"device", "restore", "--root", board.string(), "--state-dir", state.string()});
  EXPECT_EQ(garbage.code, kFailure) << garbage.text();
  EXPECT_THAT(garbage.err, HasSubstr("no snapshot of the board from before the session"));
  EXPECT_THAT(garbage.err, HasSubstr(journal.string()));
  EXPECT_EQ(read_text(journal), "garbage\n");
}

// ---- meters and monitor ----------------------------------------------------------------------------

TEST_F(CliContractIntegration, MeterAndMonitorOnAPortThatCannotBeOpenedFailAndWriteNothing) {
  const std::string missing = path("ttyMISSING").string();
  const Outcome read = run({"meter", "read", "wattsup", missing, "--duration", "1"});
  EXPECT_EQ(read.code, kBadInput) << read.text();
  EXPECT_THAT(read.err, HasSubstr(missing));
  EXPECT_EQ(read.out, "");  // not even the CSV header
  const fs::path not_a_tty = write("not-a-tty", "");
  EXPECT_EQ(run({"meter", "read", "wattsup", not_a_tty.string(), "--duration", "1"}).code, kBadInput);

  const fs::path csv = path("monitor.csv");
  const Outcome monitor =
      run({"monitor", "--board", kBoard, "--duration", "1", "--meter", "wattsup:" + missing, "--csv", csv.string()});
  EXPECT_EQ(monitor.code, kBadInput) << monitor.text();
  EXPECT_FALSE(fs::exists(csv));

  for (const std::string duration : {"nan", "-1", "inf"}) {
    const Outcome r = run({"monitor", "--board", kBoard, "--duration", duration});
    EXPECT_EQ(r.code, kBadInput) << "--duration " << duration << "\n" << r.text();
    EXPECT_THAT(r.err, Not(HasSubstr("179769313486231570")));
  }
  EXPECT_EQ(run({"meter", "read", "wattsup", missing, "--duration", "nan"}).code, kBadInput);
  EXPECT_EQ(run({"meter", "simulate", "wattsup", "--duration", "-2"}).code, kBadInput);
  EXPECT_EQ(run({"meter", "read", "wattsup"}).code, kUsage);
  EXPECT_EQ(run({"meter", "simulate"}).code, kUsage);
  EXPECT_EQ(run({"meter", "simulate", "wattsup", "--trace", path("missing.csv").string(), "--duration", "1"}).code,
            kBadInput);
  // A trace with the header the help names is read; one naming other columns is bad input.
  const fs::path watts = write("watts.csv", "t_s,power_w\n0,5\n1,5\n");
  const Outcome header = run({"meter", "simulate", "wattsup", "--trace", watts.string(), "--duration", "1"});
  EXPECT_EQ(header.code, kBadInput) << header.text();
  EXPECT_THAT(header.err, HasSubstr("header 't_s,power_w' names other columns"));
}

TEST_F(CliContractIntegration, MonitorEndsWithStatus130OnSigintAfterItsSummary) {
  const Outcome ok = run({"monitor", "--board", kBoard, "--duration", "0.3"});
  EXPECT_EQ(ok.code, kOk) << ok.text();
  const Outcome stopped = start({"monitor", "--board", kBoard},
                                [](const Outcome& r) { return contains(r.out, "RAM ") || contains(r.out, "CPU ["); });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_THAT(stopped.err, HasSubstr("sampler: "));  // the summary still came
  EXPECT_THAT(stopped.err, HasSubstr("stopped by SIGINT"));
}

// The Watts Up? simulator's records end in CR LF and it greets with a banner, as a meter does:
// outside packets, ignored by the protocol. Readings arrive on time, so no gap and no garbage.
TEST_F(CliContractIntegration, MeterSimulatorAndReaderAgreeOnTheWattsUpFraming) {
  const fs::path link = path("meter-pty");
  const fs::path sim_out = path("sim.out");
  const pid_t simulator = jetchar::testing::spawn_jetchar(
      {"meter", "simulate", "wattsup", "--interval", "200", "--link", link.string()}, sim_out, path("sim.err"));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (read_text(sim_out).empty() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const Outcome read = run({"meter", "read", "wattsup", link.string(), "--interval", "200", "--duration", "1.5"});
  ::kill(simulator, SIGINT);
  int status = 0;
  ::waitpid(simulator, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == kInterrupted) << "simulator status " << status;
  EXPECT_EQ(read.code, kOk) << read.text();
  EXPECT_THAT(read.out, HasSubstr("time_s,power_mw"));
  EXPECT_THAT(read.err, Not(HasSubstr("gap")));
  EXPECT_THAT(read.err, HasSubstr(" 0 bad frames, 0 garbage bytes"));
}

// ---- sweeps ------------------------------------------------------------------------------------

TEST_F(CliContractIntegration, ARejectedSweepLeavesNothingBehind) {
  const fs::path results = path("results");
  // Refused by validation against the board: 307 MHz is no GPU clock of this board.
  const fs::path invalid = write("invalid.textproto", R"(name: "invalid"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=64&classes=10" batch_size: 16 epochs: 2 max_minibatches: 2 device: "cpu" } }
axes { field: "device.gpu_freq_mhz" values: ["307"] }
)");
  const Outcome refused = run({"sweep", "run", invalid.string(), "--results", results.string(), "--board", kBoard});
  EXPECT_EQ(refused.code, kBadInput) << refused.text();
  EXPECT_THAT(refused.err, HasSubstr("nothing was run"));
  EXPECT_FALSE(fs::exists(results));
  EXPECT_EQ(run({"sweep", "plan", invalid.string(), "--board", kBoard}).code, kBadInput);

  // Refused when read: `epochs: 0` would have run one epoch; `batch_size: "big"` names its field.
  const fs::path zero =
      write("zero.textproto", "name: \"z\"\nbase { workload { model: \"lenet5\" batch_size: 16 epochs: 0 } }\n");
  const Outcome zero_run = run({"sweep", "run", zero.string(), "--results", results.string(), "--board", kBoard});
  EXPECT_EQ(zero_run.code, kBadInput) << zero_run.text();
  EXPECT_THAT(zero_run.err, HasSubstr("field base.workload.epochs: 0 cannot be told"));
  const fs::path big =
      write("big.textproto", "name: \"b\"\nbase { workload { model: \"lenet5\" batch_size: \"big\" } }\n");
  const Outcome big_run = run({"sweep", "plan", big.string(), "--board", kBoard});
  EXPECT_EQ(big_run.code, kBadInput);
  EXPECT_THAT(big_run.err, HasSubstr("field batch_size: Expected integer"));
  EXPECT_FALSE(fs::exists(results));

  EXPECT_EQ(run({"sweep", "run", path("missing.textproto").string(), "--board", kBoard}).code, kBadInput);
  EXPECT_EQ(run({"sweep", "run", path("").string(), "--board", kBoard}).code, kBadInput);  // a directory
  EXPECT_EQ(run({"sweep", "resume", path("nowhere").string()}).code, kBadInput);
  EXPECT_EQ(run({"sweep", "run"}).code, kUsage);

  // A results directory that holds another sweep is refused and left as it was.
  const fs::path other = store_copy();
  const auto before = tree(other);
  const fs::path spec = write("tiny.textproto", R"(name: "tiny"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=64&classes=10" batch_size: 16 epochs: 2 max_minibatches: 2 device: "cpu" } }
)");
  EXPECT_EQ(run({"sweep", "run", spec.string(), "--results", other.string(), "--board", kBoard}).code, kBadInput);
  EXPECT_EQ(tree(other), before);
  // So is a directory whose results.db is not a store: no empty store over it, no spec copied in.
  const fs::path damaged = path("damaged");
  write("damaged/results.db", "not a store");
  const auto damaged_before = tree(damaged);
  EXPECT_EQ(run({"sweep", "run", spec.string(), "--results", damaged.string(), "--board", kBoard}).code, kBadInput);
  EXPECT_EQ(tree(damaged), damaged_before);
}

TEST_F(CliContractIntegration, ASweepWhoseRunsAreNotOkFails) {
  const fs::path spec = write("skip.textproto", R"(name: "skip"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=64&classes=10" batch_size: 16 epochs: 2 max_minibatches: 2 device: "cpu" } }
axes { field: "device.gpu_freq_mhz" values: ["307"] }
)");
  const fs::path results = path("results");
  const Outcome r =
      run({"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard, "--skip-validation"});
  EXPECT_EQ(r.code, kFailure) << r.text();
  EXPECT_THAT(r.err, HasSubstr("1 of 1 stored runs are not OK"));
  // The run is stored all the same (what was measured is never lost).
  EXPECT_EQ(run({"results", "list", results.string()}).code, kOk);
}

TEST_F(CliContractIntegration, ASweepStoppedBySigintExits130AndResumes) {
  const fs::path spec = write("long.textproto", R"(name: "long"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 16 epochs: 2 max_minibatches: 4 device: "cpu" } }
axes { field: "workload.seed" values: ["1", "2", "3", "4", "5", "6", "7", "8"] }
)");
  const fs::path results = path("results");
  const Outcome stopped = start({"sweep", "run", spec.string(), "--results", results.string(), "--board", kBoard},
                                [](const Outcome& r) { return contains(r.err, "run 0000-r0 (1/8)"); });
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  // The hint repeats the board the sweep ran on.
  EXPECT_THAT(stopped.err, HasSubstr("`jetchar sweep resume " + results.string() + " --board " + kBoard + "`"));
  const Outcome resumed = run({"sweep", "resume", results.string(), "--board", kBoard});
  EXPECT_EQ(resumed.code, kOk) << resumed.text();
  EXPECT_THAT(resumed.out, HasSubstr("8 of 8 runs stored"));
}

// The sweep holds SIGINT/SIGTERM for its whole duration and its control session holds them too
// (jetson/control/control_interrupt.h): a signal while the board is in a swept mode ends the sweep
// with status 130 (after the current run, or at once when it lands while a mode is applied) and
// the board is restored.
TEST_F(CliContractIntegration, ASweepStoppedBySigtermWhileControllingTheBoardRestoresIt) {
  const fs::path board = path("board");
  ASSERT_EQ(run({"device", "modes", "--board", kBoard, "--root", board.string()}).code, kOk);
  const auto before = tree(board / "sys/devices/system/cpu");
  const fs::path spec = write("cores.textproto", R"(name: "cores"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 16 epochs: 2 max_minibatches: 4 device: "cpu" } }
axes { field: "device.cpu_cores" values: ["4", "6", "8", "10", "2", "12"] }
)");
  const Outcome stopped = start(
      {"sweep", "run", spec.string(), "--results", path("results").string(), "--board", kBoard, "--root",
       board.string()},
      [](const Outcome& r) { return contains(r.err, "run 0000-r0 (1/6)"); }, SIGTERM);
  EXPECT_THAT(stopped.err, HasSubstr("power mode: custom: 4 cores")) << "the board was not controlled";
  EXPECT_EQ(stopped.killed_by, 0) << stopped.text();
  EXPECT_EQ(stopped.code, kInterrupted) << stopped.text();
  EXPECT_EQ(tree(board / "sys/devices/system/cpu"), before) << stopped.text();
}

// ---- reading results ----------------------------------------------------------------------------

TEST_F(CliContractIntegration, ReadCommandsLeaveTheStoreByteIdentical) {
  const fs::path store = store_copy();
  const std::string db = (store / "results.db").string();
  const fs::path modes = write("modes.csv", kModesCsv);
  const fs::path exported = path("out/runs.csv");
  const fs::path report = path("out/report.html");
  fs::create_directories(exported.parent_path());
  const std::vector<std::vector<std::string>> reads = {
      {"results", "list", store.string()},
      {"results", "list", db},
      {"results", "show", store.string(), "0000-r0"},
      {"results", "export", store.string(), "--csv"},
      {"results", "export", db, "--jsonl", "-o", exported.string()},
      {"analyze", "stats", store.string()},
      {"analyze", "pareto", db},
      {"analyze", "choose", store.string(), "--max-time", "10"},
      {"analyze", "fit", store.string(), "--model", "nnls"},
      {"analyze", "predict", store.string(), "--modes", modes.string(), "--model", "nnls"},
      {"report", store.string(), "-o", report.string()},
  };
  for (const auto& args : reads) expect_read_only(args, store, kOk);
  EXPECT_EQ(names_in(store), (std::vector<std::string>{"journal", "lock", "results.db", "sweep.textproto"}));
  EXPECT_TRUE(fs::exists(exported));
  EXPECT_TRUE(fs::exists(report));

  // Bad input on the same store is refused without touching it either.
  expect_read_only({"results", "show", store.string(), "9999-r9"}, store, kBadInput);
  expect_read_only({"analyze", "pareto", store.string(), "--per", "bogus"}, store, kBadInput);
  expect_read_only({"analyze", "choose", store.string()}, store, kUsage);
  expect_read_only({"results", "export", store.string()}, store, kUsage);
  expect_read_only({"analyze", "predict", store.string(), "--modes", path("missing.csv").string()}, store, kBadInput);
  expect_read_only({"analyze", "fit", store.string(), "--folds", "nan"}, store, kBadInput);
  // A plain sweep stored no mode predictions: named as bad input.
  expect_read_only({"analyze", "predictions", store.string()}, store, kBadInput);
}

// The epoch time a user sees is one number: results list, the sweep summary, analyze and the
// report all take the median over warm epochs (after epoch 0), and say so.
TEST_F(CliContractIntegration, EveryOutputGivesTheWarmEpochTimeAndSaysSo) {
  const fs::path store = store_copy();
  const Outcome list = run({"results", "list", store.string()});
  ASSERT_EQ(list.code, kOk) << list.text();
  EXPECT_THAT(list.out, HasSubstr("medians over warm epochs"));
  const Outcome sweep_log{0, 0, read_text(contract_store().parent_path() / "sweep.log"), ""};
  EXPECT_THAT(sweep_log.out, HasSubstr("medians over warm epochs"));
  // Per run: the list's epoch time is the warm epoch's (each run has epochs 0 and 1 here), the
  // one the export's rows give for epoch 1.
  const Outcome csv = run({"results", "export", store.string(), "--csv"});
  ASSERT_EQ(csv.code, kOk) << csv.text();
  std::istringstream rows(csv.out);
  std::string header;
  std::getline(rows, header);
  std::vector<std::string> columns;
  for (std::size_t at = 0; at <= header.size();) {
    const std::size_t comma = std::min(header.find(',', at), header.size());
    columns.push_back(header.substr(at, comma - at));
    at = comma + 1;
  }
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  ASSERT_LT(column("e2e_s"), columns.size()) << header;
  std::map<std::string, double> warm;  // run -> epoch 1's e2e
  for (std::string row; std::getline(rows, row);) {
    std::vector<std::string> cells;
    for (std::size_t at = 0; at <= row.size();) {
      const std::size_t comma = std::min(row.find(',', at), row.size());
      cells.push_back(row.substr(at, comma - at));
      at = comma + 1;
    }
    if (cells.size() == columns.size() && cells[column("epoch")] == "1")
      warm[cells[column("run_id")]] = std::stod(cells[column("e2e_s")]);
  }
  ASSERT_EQ(warm.size(), 6u) << csv.out;
  for (const auto& [run_id, e2e] : warm) {
    EXPECT_THAT(list.out, HasSubstr(fmt::format(" {} ", run_id)));
    const std::size_t line = list.out.find(" " + run_id + " ");
    const std::string text = list.out.substr(line, list.out.find('\n', line) - line);
    EXPECT_THAT(text, HasSubstr(fmt::format(" {:.3f} ", e2e))) << text;
  }
  for (const std::vector<std::string>& analyze :
       {std::vector<std::string>{"analyze", "stats", store.string()}, {"analyze", "pareto", store.string()}}) {
    const Outcome r = run(analyze);
    EXPECT_EQ(r.code, kOk) << r.text();
    EXPECT_THAT(r.out, HasSubstr("warm epochs")) << fmt::format("{}", fmt::join(analyze, " "));
  }
  const fs::path report = path("report.html");
  ASSERT_EQ(run({"report", store.string(), "-o", report.string()}).code, kOk);
  EXPECT_THAT(read_text(report), HasSubstr("Epoch times and energies are medians over warm epochs"));
}

// A results.db that is not a store is bad input for every reader (results list gave 1, analyze 3),
// and the store, its directory and earlier outputs stay as they were: no empty store written over
// a 0-byte file, no -wal/-shm beside it, no report or export replaced.
class NotAStoreIntegration : public CliContractIntegration, public ::testing::WithParamInterface<std::string> {
 protected:
  /// What the results.db of each case holds.
  static std::string content(const std::string& name) {
    if (name == "empty") return "";
    if (name == "damaged")
      return std::string("SQLite format 3\0", 16) + std::string(5000, 'Z');  // the header, then junk
    return "not a database at all, just text";
  }
};

TEST_P(NotAStoreIntegration, IsBadInputForEveryReaderAndStaysAsItWas) {
  const std::string name = GetParam();
  const fs::path report = write("old-report.html", "an earlier report");
  const fs::path exported = write("old-runs.csv", "an earlier export");
  const fs::path store = path(name);
  write(name + "/results.db", content(name));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"results", "list", store.string()},
                                               {"results", "list", (store / "results.db").string()},
                                               {"results", "show", store.string(), "0000-r0"},
                                               {"results", "export", store.string(), "--csv", "-o", exported.string()},
                                               {"analyze", "stats", store.string()},
                                               {"analyze", "pareto", (store / "results.db").string()},
                                               {"report", store.string(), "-o", report.string()}}) {
    expect_read_only(args, store, kBadInput);
  }
  EXPECT_EQ(names_in(store), std::vector<std::string>{"results.db"});
  EXPECT_EQ(read_text(report), "an earlier report");
  EXPECT_EQ(read_text(exported), "an earlier export");
}

INSTANTIATE_TEST_SUITE_P(Stores, NotAStoreIntegration, ::testing::Values("empty", "damaged", "text"),
                         [](const auto& info) { return info.param; });

TEST_F(CliContractIntegration, MissingStoresAndUnwritableOutputsAreBadInputAndCreateNothing) {
  const fs::path none = path("none");
  EXPECT_EQ(run({"results", "list", none.string()}).code, kBadInput);
  EXPECT_EQ(run({"analyze", "stats", none.string()}).code, kBadInput);
  EXPECT_FALSE(fs::exists(none));
  const fs::path report = path("report.html");
  fs::create_directories(path("bare"));
  EXPECT_EQ(run({"results", "list", path("bare").string()}).code, kBadInput);
  EXPECT_EQ(run({"report", path("bare").string(), "-o", report.string()}).code, kBadInput);
  EXPECT_TRUE(fs::is_empty(path("bare")));
  EXPECT_FALSE(fs::exists(report));
  // Output paths that cannot be written are bad input too, and leave the store alone.
  const fs::path store = store_copy();
  expect_read_only({"report", store.string(), "-o", path("bare").string()}, store, kBadInput);
  expect_read_only({"results", "export", store.string(), "--csv", "-o", path("no/such/dir/x.csv").string()}, store,
                   kBadInput);
  EXPECT_TRUE(fs::is_empty(path("bare")));
}

}  // namespace
}  // namespace jetchar::cli
