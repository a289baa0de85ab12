// The fixture of the tests that run the real jetchar executable on simulated boards: start it
// (optionally sending a signal once its output reaches a point), compare folders before and after,
// and the small power-mode sweep whose store the read commands use (swept once per binary).
#pragma once

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

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {

namespace fs = std::filesystem;
using jetchar::testing::read_text;

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kBoard = "sim:agx-orin-r36";

/// Everything under `root` (file contents, directories, links), to compare before and after a
/// command; "<absent>" when `root` does not exist.
inline std::map<std::string, std::string> tree(const fs::path& root) {
  std::map<std::string, std::string> entries;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(root, ec))) return {{"", "<absent>"}};
  if (!fs::is_directory(root, ec)) return {{"", read_text(root)}};
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().lexically_relative(root).string();
    if (it->is_symlink()) entries[name] = "<link " + fs::read_symlink(it->path()).string() + ">";
    else if (it->is_directory()) entries[name] = "<dir>";
    else entries[name] = read_text(it->path());
  }
  return entries;
}

inline std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Outcome {
  int code = -1;      ///< exit status; -1 when a signal killed it
  int killed_by = 0;  ///< the signal that killed it (0: it exited by itself)
  std::string out;
  std::string err;
  std::string text() const {
    return fmt::format("exit {} (signal {})\nstdout:\n{}\nstderr:\n{}", code, killed_by, out, err);
  }
};

/// A tiny power-mode sweep on the simulated board: 3 GPU clocks x 2 core counts, all four knobs
/// set so that `analyze fit` and `predict` have modes to fit (the linear model needs 6).
constexpr const char* kSweepSpec = R"(name: "contract"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=256&classes=10" batch_size: 32 epochs: 2 max_minibatches: 3 device: "cpu" }
  device { cpu_freq_mhz: 1728 emc_freq_mhz: 3199 dvfs: OFF }
  measurement { sample_rate_hz: 100 }
}
axes { field: "device.gpu_freq_mhz" values: ["306", "918", "1300.5"] }
axes { field: "device.cpu_cores" values: ["4", "12"] }
)";

/// Power modes to predict, in `analyze predict --modes` format.
constexpr const char* kModesCsv =
    "mode,cpu_cores,cpu_freq_khz,gpu_freq_hz,emc_freq_hz\nmid,8,1728000,612000000,3199000000\n";

class CliIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(jetchar::testing::jetchar_executable())) {
      GTEST_SKIP() << jetchar::testing::jetchar_executable() << " is not built";
    }
    fs::create_directories(io_);
  }

  /// Starts jetchar with `args`; `until` (if any) is polled with the output so far and, once it
  /// returns true, `signal` is sent. Waits for the end and tells an exit from a death by signal.
  Outcome start(const std::vector<std::string>& args, const std::function<bool(const Outcome&)>& until = {},
                int signal = SIGINT) {
    const int n = ++runs_;
    const fs::path out = io_ / fmt::format("{}.out", n);
    const fs::path err = io_ / fmt::format("{}.err", n);
    const pid_t child = jetchar::testing::spawn_jetchar(args, out, err);
    Outcome run;
    int status = 0;
    if (until) {
      // No timing is asserted: the bound only turns a command that never gets there into a
      // failure instead of a hung test.
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
      bool sent = false;
      while (std::chrono::steady_clock::now() < give_up) {
        if (::waitpid(child, &status, WNOHANG) == child) break;
        run.out = read_text(out);
        run.err = read_text(err);
        if (until(run)) {
          ::kill(child, signal);
          sent = true;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (!sent) {
        ::kill(child, SIGKILL);
        ADD_FAILURE() << "the command ended or never reached the point to interrupt: " << read_text(err);
      }
    }
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    run.out = read_text(out);
    run.err = read_text(err);
    if (WIFEXITED(status)) run.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.killed_by = WTERMSIG(status);
    return run;
  }
  Outcome run(const std::vector<std::string>& args) { return start(args); }

  /// A copy of the contract sweep's results directory, for commands that must not change it.
  fs::path store_copy(const std::string& name = "store") {
    fs::path copy = dir_.path() / name;
    fs::copy(contract_store(), copy, fs::copy_options::recursive);
    return copy;
  }

  /// The contract sweep's results (swept once per jetchar binary, under an flock: ctest -j runs
  /// the cases of this file in parallel processes).
  static fs::path contract_store() {
    const fs::path binary = jetchar::testing::jetchar_executable();
    const fs::path dir = jetchar::testing::binary_dir() / "cli-contract-sweep";
    struct stat info {};
    if (::stat(binary.c_str(), &info) != 0) throw std::runtime_error(binary.string() + " is not built");
    const std::string stamp = fmt::format("{} {} {} {}\n", binary.string(), info.st_size, info.st_mtim.tv_sec,
                                          std::hash<std::string>{}(kSweepSpec));
    fs::create_directories(dir.parent_path());
    const int lock = ::open((dir.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ::flock(lock, LOCK_EX);
    if (read_text(dir / "stamp") != stamp || !fs::exists(dir / "results" / "results.db")) {
      fs::remove_all(dir);
      fs::create_directories(dir);
      std::ofstream(dir / "sweep.textproto") << kSweepSpec;
      const int status = jetchar::testing::run_jetchar({"sweep", "run", (dir / "sweep.textproto").string(), "--results",
                                                        (dir / "results").string(), "--board", kBoard},
                                                       dir / "sweep.log", dir / "sweep.log");
      if (status != 0) {
        ::close(lock);
        throw std::runtime_error(
            fmt::format("the contract sweep exited {}:\n{}", status, read_text(dir / "sweep.log")));
      }
      std::ofstream(dir / "stamp") << stamp;
    }
    ::close(lock);
    return dir / "results";
  }

  fs::path write(const std::string& name, const std::string& content) { return dir_.write(name, content); }
  fs::path path(const std::string& name) const { return dir_.path() / name; }

  /// Runs a read command on `store` and expects `code`, the store's directory unchanged byte for
  /// byte and nothing new beside it (no -wal, -shm, -journal).
  void expect_read_only(const std::vector<std::string>& args, const fs::path& store, int code) {
    const auto before = tree(store);
    const Outcome r = run(args);
    EXPECT_EQ(r.code, code) << fmt::format("jetchar {}\n", fmt::join(args, " ")) << r.text();
    EXPECT_EQ(tree(store), before) << fmt::format("jetchar {} changed {}", fmt::join(args, " "), store.string());
  }

  jetchar::testing::TempDir dir_;
  fs::path io_ = dir_.path() / "io";
  int runs_ = 0;
};

}  // namespace jetchar::cli
