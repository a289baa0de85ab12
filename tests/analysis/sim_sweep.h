// A real power-mode sweep on a simulated AGX Orin, run by the built jetchar binary, for the
// analysis integration tests (sim_sweep_analysis_test.cpp, report_browser_test.cpp).
//
// ctest runs every test case in its own process, so the sweep is kept in the build tree
// (<build>/analysis-sim-sweep/) and reused while the jetchar binary and the spec are unchanged:
// a stamp file records both. An flock serialises concurrent test processes (ctest -j). To run it
// by hand: jetchar sweep run SPEC --results DIR --board sim:agx-orin-r36 --root BOARD_DIR.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"

namespace jetchar::analysis::testing {

namespace fs = std::filesystem;

using jetchar::testing::jetchar_executable;

using jetchar::testing::read_text;

/// Runs jetchar (under the cross build's emulator, if any) with stdout and stderr to `out`;
/// returns the exit status (128 + signal if killed).
inline int run_jetchar(const std::vector<std::string>& args, const fs::path& out) {
  return jetchar::testing::run_jetchar(args, out, out);
}

/// The sweep: 2 GPU clocks x 2 core counts x 2 CPU clocks x 2 EMC rates = 16 power modes, all
/// four knobs varied so every predictor has something to fit; tiny epochs keep a run near a
/// second (~40 s in all on a loaded 2-core machine, most of it per-run settling). Three warm
/// epochs, so a run keeps an energy median when one epoch's energy is absent (the power session
/// leaves an epoch's energy out when its samples do not cover it).
inline constexpr const char* kSimSweepSpec = R"(name: "analysis-sim"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=2048&classes=10" batch_size: 32 epochs: 4 max_minibatches: 12 device: "cpu" }
  device { dvfs: OFF }
  measurement { sample_rate_hz: 200 minibatch_records: true power_samples: true }
}
axes { field: "device.gpu_freq_mhz" values: ["306", "1300.5"] }
axes { field: "device.cpu_cores" values: ["4", "12"] }
axes { field: "device.cpu_freq_mhz" values: ["1113.6", "2201.6"] }
axes { field: "device.emc_freq_mhz" values: ["2133", "3199"] }
)";
inline constexpr std::size_t kSimSweepModes = 16;

struct SimSweep {
  fs::path results;   ///< the results directory (results.db, sweep.textproto, journal)
  std::string error;  ///< why there is none; empty when it is there
};

/// Runs the sweep, or reuses the one a test process before ran with the same binary and spec.
inline SimSweep sim_sweep() {
  const fs::path binary = jetchar_executable();
  const fs::path dir = jetchar::testing::binary_dir() / "analysis-sim-sweep";
  SimSweep sweep{dir / "results", {}};
  struct stat info {};
  if (::stat(binary.c_str(), &info) != 0) {
    sweep.error = fmt::format("{} is not built (build the jetchar target, or set JETCHAR_CLI)", binary.string());
    return sweep;
  }
  const std::string stamp = fmt::format("{} {} {} {}\n", binary.string(), info.st_size, info.st_mtim.tv_sec,
                                        std::hash<std::string>{}(kSimSweepSpec));
  fs::create_directories(dir);
  const int lock = ::open((dir.parent_path() / "analysis-sim-sweep.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ::flock(lock, LOCK_EX);
  if (read_text(dir / "stamp") != stamp || !fs::exists(sweep.results / "results.db")) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "sweep.textproto") << kSimSweepSpec;
    const int status =
        run_jetchar({"sweep", "run", (dir / "sweep.textproto").string(), "--results", sweep.results.string(), "--board",
                     "sim:agx-orin-r36", "--root", (dir / "board").string()},
                    dir / "sweep.log");
    if (status == 0) {
      std::ofstream(dir / "stamp") << stamp;
    } else {
      sweep.error = fmt::format("jetchar sweep run exited {}:\n{}", status, read_text(dir / "sweep.log"));
    }
  }
  ::flock(lock, LOCK_UN);
  ::close(lock);
  return sweep;
}

}  // namespace jetchar::analysis::testing
