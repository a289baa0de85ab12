// workload.optimizer and workload.weight_decay as sweep fields, through the real executor on a
// simulated AGX Orin: each run trains with the axis's optimizer and decay and records what the
// trainer resolved (defaults included) in its resolved spec; an axis value that is no optimizer
// names the valid ones, and a decay outside [0, 1] is refused when the sweep is planned.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "experiments/characterization_executor.h"
#include "jetson/open_board.h"
#include "sweeps/plan.h"
#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

constexpr const char* kBase =
    "name: \"s\"\nbase {\n  workload { model: \"lenet5\" dataset: \"synthetic:1x28x28?samples=32&classes=10\" "
    "batch_size: 8 max_minibatches: 2 device: \"cpu\" }\n}\n";

sweeps::SweepPlan plan(const std::string& axes) {
  return sweeps::plan_sweep(sweeps::parse_sweep_spec(kBase + axes, "sweep.textproto"), "sweep.textproto");
}

TEST(SweepOptimizerFieldsTest, EachRunTrainsWithItsOptimizerAndDecayAndRecordsThem) {
  testing::TempDir dir;
  auto board = jetson::open_board("sim:agx-orin-r36", dir.path() / "board");
  const auto planned = plan(
      "axes { field: \"workload.optimizer\" values: [\"SGD\", \"ADAMW\"] }\n"
      "axes { field: \"workload.weight_decay\" values: [\"0.05\"] }\n");
  ASSERT_EQ(planned.runs.size(), 2u);
  const auto unset = plan("");  // neither field set
  ASSERT_EQ(unset.runs.size(), 1u);
  CharacterizationExecutor executor(board);
  std::vector<proto::RunResult> results;
  for (const auto& run : planned.runs) results.push_back(executor.execute(run));
  results.push_back(executor.execute(unset.runs.front()));
  executor.restore();
  auto requested = [&](proto::Optimizer optimizer) -> const proto::RunResult& {
    for (const auto& result : results) {
      if (result.requested().workload().optimizer() == optimizer) return result;
    }
    throw std::runtime_error("no run requested that optimizer");
  };
  for (const auto& result : results) ASSERT_EQ(result.status(), proto::OK) << result.reason();
  EXPECT_EQ(requested(proto::SGD).resolved().workload().optimizer(), proto::SGD);
  EXPECT_DOUBLE_EQ(requested(proto::SGD).resolved().workload().weight_decay(), 0.05);
  EXPECT_EQ(requested(proto::ADAMW).resolved().workload().optimizer(), proto::ADAMW);
  EXPECT_DOUBLE_EQ(requested(proto::ADAMW).resolved().workload().weight_decay(), 0.05);
  // The run that sets neither: LeNet-5 trains with the seed study's SGD, without decay.
  const auto& defaults = requested(proto::OPTIMIZER_UNSPECIFIED);
  EXPECT_FALSE(defaults.requested().workload().has_weight_decay());
  EXPECT_EQ(defaults.resolved().workload().optimizer(), proto::SGD);
  EXPECT_DOUBLE_EQ(defaults.resolved().workload().weight_decay(), 0.0);
}

TEST(SweepOptimizerFieldsTest, BadValuesNameTheFieldTheValueAndWhatIsValid) {
  try {
    (void)plan("axes { field: \"workload.optimizer\" values: [\"ADAM\"] }\n");
    ADD_FAILURE() << "ADAM was accepted";
  } catch (const sweeps::SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("'ADAM' is not a valid value; valid: OPTIMIZER_UNSPECIFIED, SGD, ADAMW"),
              std::string::npos)
        << error.what();
  }
  try {
    (void)plan("axes { field: \"workload.weight_decay\" values: [\"-1\"] }\n");
    ADD_FAILURE() << "a weight decay of -1 was accepted";
  } catch (const sweeps::SpecError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("workload.weight_decay=-1: -1 is out of range; valid: 0 to 1 (AdamW's decoupled decay, SGD's "
                        "L2 term)"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace jetchar::experiments
