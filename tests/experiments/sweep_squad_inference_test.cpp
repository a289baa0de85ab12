// SQuAD-dev inference in a sweep, through the real executor on a simulated AGX Orin: a task INFER
// workload with a SQuAD data set queries its dev windows (workload.sequence_length tokens each),
// and the run's latency summary names the inputs and carries J/query and J/sample over the timed
// queries; the results store keeps them and the export writes them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "experiments/characterization_executor.h"
#include "experiments/sweep_validation.h"
#include "jetson/open_board.h"
#include "results/export.h"
#include "results/store.h"
#include "sweeps/plan.h"
#include "sweeps/spec_io.h"
#include "tests/support/squad_sample.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using nlohmann::json;

class SweepSquadInferenceTest : public ::testing::Test {
 protected:
  SweepSquadInferenceTest() : board_(jetson::open_board("sim:agx-orin-r36", dir_.path() / "board")) {
    dir_.write("squad/vocab.txt", testing::kSquadSampleVocab);
    dir_.write("squad/dev-v1.1.json", testing::squad_sample_json(3));
  }

  sweeps::SweepPlan plan(const std::string& dataset_options, const std::string& sequence_length) {
    const std::string text = "name: \"s\"\nbase {\n  workload { model: \"bert-tiny-qa\" task: INFER dataset: \"squad:" +
                             (dir_.path() / "squad").string() +
                             "?vocab=" + (dir_.path() / "squad" / "vocab.txt").string() + dataset_options +
                             "\" batch_size: 4 sequence_length: " + sequence_length +
                             " device: \"cpu\" inference { warmup_batches: 1 min_queries: 30 } }\n}\n";
    return sweeps::plan_sweep(sweeps::parse_sweep_spec(text, "sweep.textproto"), "sweep.textproto");
  }

  testing::TempDir dir_;
  jetson::BoardHandle board_;
};

TEST_F(SweepSquadInferenceTest, TheDevWindowsAreQueriedAndJoulesPerQueryStoredAndExported) {
  // 16 positions, questions cut to 4 pieces, 4 shared: two windows per question.
  const auto planned = plan("&stride=4&max_query_length=4", "16");
  ASSERT_EQ(planned.runs.size(), 1u);
  EXPECT_TRUE(validate_plan_against_board(planned, board_).empty());
  CharacterizationExecutor executor(board_);
  const auto result = executor.execute(planned.runs.front());
  executor.restore();
  ASSERT_EQ(result.status(), proto::OK) << result.reason();
  const auto& latency = result.latency();
  EXPECT_EQ(latency.inputs(), "dev-v1.1.json");
  EXPECT_EQ(latency.input_samples(), 6u);
  EXPECT_EQ(latency.batches(), 30u);
  EXPECT_GT(latency.p99_ms(), 0);
  ASSERT_TRUE(latency.has_energy_per_query_j());  // the simulated board has power rails
  EXPECT_GT(latency.energy_per_query_j(), 0);
  EXPECT_DOUBLE_EQ(latency.energy_per_sample_j(), latency.energy_per_query_j() / 4);
  EXPECT_FALSE(result.context().energy_source().empty());
  // A CPU run has no CUDA stack to record.
  EXPECT_FALSE(result.context().has_cuda_runtime_version());
  EXPECT_FALSE(result.context().has_cudnn_version());
  EXPECT_FALSE(result.context().has_gpu_name());
  EXPECT_FALSE(result.context().has_gpu_compute_capability());

  results::ResultsStore store(dir_.path() / "results.db");
  store.save(result);
  const auto loaded = store.load(result.sweep(), result.run_id());
  ASSERT_TRUE(loaded.has_value());
  EXPECT_DOUBLE_EQ(loaded->latency().energy_per_query_j(), latency.energy_per_query_j());
  std::ostringstream jsonl;
  results::export_results({*loaded}, results::ExportFormat::kJsonl, jsonl);
  const auto row = json::parse(jsonl.str());
  // The export's 10 significant digits (results/export.cpp).
  EXPECT_NEAR(row["energy_per_query_j"].get<double>(), latency.energy_per_query_j(),
              1e-9 * latency.energy_per_query_j());
  EXPECT_NEAR(row["latency_p99_ms"].get<double>(), latency.p99_ms(), 1e-9 * latency.p99_ms());
}

TEST_F(SweepSquadInferenceTest, WindowsThatDoNotFitTheSequenceLengthAreNamedByValidation) {
  // At 16 positions the default question length (64) and stride (128) leave no room.
  const auto problems = validate_plan_against_board(plan("", "16"), board_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems.front().message.find("workload.dataset"), std::string::npos) << problems.front().message;
  EXPECT_NE(problems.front().message.find("max_length 16 must exceed max question length 64"), std::string::npos)
      << problems.front().message;
}

}  // namespace
}  // namespace jetchar::experiments
