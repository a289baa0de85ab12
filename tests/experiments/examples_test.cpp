// The example sweeps in examples/: each one plans and validates against the board it is written for
// (simulated here), and the simulated-board example runs end to end.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "experiments/characterization_executor.h"
#include "experiments/sweep_validation.h"
#include "jetson/open_board.h"
#include "results/store.h"
#include "sweeps/journal.h"
#include "sweeps/plan.h"
#include "sweeps/runner.h"
#include "sweeps/spec_io.h"
#include "tests/support/build_tree.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;

struct Example {
  std::string file;
  std::string board;       ///< the simulated board that stands in for the one it is written for
  bool data_on_the_board;  ///< its data set path exists only on a real board
};

const Example kExamples[] = {
    {"agx-orin-preset-modes", "sim:agx-orin-r36", true},
    {"agx-xavier-study-modes", "sim:agx-xavier-r32", true},
    {"sim-agx-orin-power-modes", "sim:agx-orin-r36", false},
    {"sim-agx-orin-adaptive", "sim:agx-orin-r36", false},
    {"sim-agx-orin-adaptive-profile", "sim:agx-orin-r36", false},
};

sweeps::SweepPlan plan_example(const std::string& name) {
  const fs::path path = testing::source_dir() / "examples" / (name + ".textproto");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return sweeps::plan_sweep(sweeps::parse_sweep_spec(text.str(), path.string()), path.string());
}

TEST(ExamplesIntegration, EveryExampleIsValidOnTheBoardItIsWrittenFor) {
  for (const auto& example : kExamples) {
    SCOPED_TRACE(example.file);
    testing::TempDir dir;
    const auto board = jetson::open_board(example.board, dir.path() / "board");
    const auto plan = plan_example(example.file);
    EXPECT_FALSE(plan.runs.empty());
    for (const auto& problem : validate_plan_against_board(plan, board)) {
      // A data set under /data exists on the board the example is for, not on this machine;
      // everything else (models, modes, frequencies, cores, meters) must be valid here.
      const bool missing_board_data =
          example.data_on_the_board && problem.message.find("workload.dataset") != std::string::npos;
      if (!missing_board_data) ADD_FAILURE() << problem.run_id << ": " << problem.message;
    }
  }
}

TEST(ExamplesIntegration, TheSimulatedBoardExampleRunsEndToEnd) {
  testing::TempDir dir;
  auto board = jetson::open_board("sim:agx-orin-r36", dir.path() / "board");
  const auto plan = plan_example("sim-agx-orin-power-modes");
  ASSERT_TRUE(validate_plan_against_board(plan, board).empty());
  results::ResultsStore store(dir.path() / "results.db");
  sweeps::SweepJournal journal(dir.path() / "journal");
  const sweeps::SystemdNotifier notifier;
  CharacterizationExecutor executor(board);
  sweeps::SweepRunnerOptions options;
  options.sweep_name = "sim-agx-orin-power-modes";
  const auto progress = sweeps::SweepRunner(store, journal, notifier).run(plan, executor, options);
  executor.restore();
  EXPECT_EQ(progress.done, plan.runs.size());
  for (const auto& result : store.load_all(options.sweep_name)) {
    EXPECT_EQ(result.status(), proto::OK) << result.run_id() << ": " << result.reason();
    EXPECT_GT(result.epochs_size(), 0) << result.run_id();
  }
}

}  // namespace
}  // namespace jetchar::experiments
