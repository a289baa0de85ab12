// The sweep must survive being killed at any point: a SIGKILL'd `jetchar sweep run` is finished
// by `jetchar sweep resume`, every run ends up stored exactly once, and the simulated board is
// restored to exactly the state it started in.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "results/store.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;

using testing::run_jetchar;

// Runs jetchar with `args` and SIGKILLs it after `kill_after`; returns how it ended.
int run_jetchar_killed_after(const std::vector<std::string>& args, std::chrono::milliseconds kill_after) {
  const pid_t child = testing::spawn_jetchar(args);
  std::this_thread::sleep_for(kill_after);
  ::kill(child, SIGKILL);
  return testing::wait_exit_status(child);
}

// Every regular file under `dir` with its content (the simulated board's whole state), minus
// jetchar's own state directory and the simulator's marker.
std::map<std::string, std::string> tree_contents(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.is_symlink()) continue;
    const std::string relative = fs::relative(entry.path(), dir).string();
    if (relative.rfind("var/lib/jetchar", 0) == 0 || relative.rfind(".jetchar", 0) == 0) continue;
    // Sensors follow the host's load and time; controls and clocks are what a restore must bring back.
    if (relative.find("hwmon") != std::string::npos || relative.find("iio:device") != std::string::npos ||
        relative.find("thermal_zone") != std::string::npos || relative.rfind("proc/", 0) == 0 ||
        relative.find("/load") != std::string::npos) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    files[relative] = content.str();
  }
  return files;
}

TEST(SweepResumeIntegration, KilledAtManyPointsAndResumedKeepsEveryRunOnceAndRestoresTheBoard) {
  ASSERT_TRUE(fs::exists(testing::jetchar_executable())) << testing::jetchar_executable();
  testing::TempDir dir;
  const fs::path board = dir.path() / "board";
  const fs::path results = dir.path() / "results";
  const fs::path spec = dir.write("sweep.textproto", R"(
name: "resume-test"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=512&classes=10" batch_size: 32 epochs: 2 max_minibatches: 4 device: "cpu" }
  device { cpu_freq_mhz: 1728 dvfs: OFF }
  measurement { sample_rate_hz: 50 }
}
axes { field: "device.gpu_freq_mhz" values: ["306", "918"] }
axes { field: "device.cpu_cores" values: ["4", "12"] }
axes { field: "workload.batch_size" values: ["16", "32"] }
)");
  const std::vector<std::string> board_args{"--board", "sim:agx-orin-r36", "--root", board.string()};

  // Create the simulated board once (it persists in `board`) and remember its state. Timing it
  // gives jetchar's start-up time (LibTorch loading: ~0.3 s natively, ~8 s under qemu-aarch64),
  // which the kills below wait out so that they land inside the sweep either way.
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(run_jetchar({"device", "modes", "--board", "sim:agx-orin-r36", "--root", board.string()}), 0);
  const auto startup =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  const auto before = tree_contents(board);
  ASSERT_FALSE(before.empty());

  std::mt19937 random(7);
  std::vector<std::string> run_args{"sweep", "run", spec.string(), "--results", results.string()};
  run_args.insert(run_args.end(), board_args.begin(), board_args.end());
  std::vector<std::string> resume_args{"sweep", "resume", results.string()};
  resume_args.insert(resume_args.end(), board_args.begin(), board_args.end());
  std::vector<std::string> restore_args{"device", "restore"};
  restore_args.insert(restore_args.end(), board_args.begin(), board_args.end());

  // `sweep run` of the same spec resumes too; `sweep resume` needs the spec copy that the first
  // run leaves in the results directory, so it is used once that exists.
  for (int attempt = 0; attempt < 8; ++attempt) {
    run_jetchar(restore_args);  // as jetchar-restore.service would after a crash
    const bool resumable = fs::exists(results / "sweep.textproto");
    run_jetchar_killed_after(
        resumable && attempt % 2 == 1 ? resume_args : run_args,
        startup + std::chrono::milliseconds(std::uniform_int_distribution<int>(200, 2500)(random)));
  }
  ASSERT_EQ(run_jetchar(restore_args), 0);
  ASSERT_EQ(run_jetchar(run_args), 0);
  ASSERT_EQ(run_jetchar(resume_args), 0);  // everything stored: nothing left to run

  results::ResultsStore store(results / "results.db");
  const auto runs = store.list("resume-test");
  ASSERT_EQ(runs.size(), 8u);
  for (const auto& run : runs) EXPECT_EQ(run.status, "OK") << run.run_id;
  const auto after = tree_contents(board);
  for (const auto& [path, content] : before) {
    const auto it = after.find(path);
    EXPECT_TRUE(it != after.end() && it->second == content)
        << path << " was '" << content << "', is " << (it == after.end() ? "gone" : "'" + it->second + "'");
  }
  for (const auto& [path, content] : after)
    EXPECT_TRUE(before.contains(path)) << path << " is new: '" << content << "'";
}

}  // namespace
}  // namespace jetchar::experiments
