// Task metrics in sweeps, through the real executor on a simulated AGX Orin: a BERT token
// classifier trained with workload.evaluate scores the CoNLL-2003 validation split after every
// epoch, the result carries entity precision/recall/F1 per epoch and, with workload.target_f1,
// the time and energy until the dev F1 first reached it (sums of the epochs' E2E times and
// energy windows up to that epoch); the results store and the export keep them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "experiments/characterization_executor.h"
#include "experiments/target_outcome.h"
#include "jetson/open_board.h"
#include "results/export.h"
#include "results/store.h"
#include "sweeps/plan.h"
#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;

// Sentences a tiny BERT can learn by heart: the validation split holds the same ones, so the
// dev F1 climbs to 1 within the run (the words are whole pieces of the vocabulary below).
constexpr const char* kSentences =
    "-DOCSTART- -X- -X- O\n\n"
    "alice NNP B-NP B-PER\nvisits VBZ B-VP O\nparis NNP B-NP B-LOC\n\n"
    "bob NNP B-NP B-PER\nworks VBZ B-VP O\nat IN B-PP O\nacme NNP B-NP B-ORG\n\n"
    "the DT B-NP O\nnile NNP I-NP B-LOC\nflows VBZ B-VP O\n\n"
    "carol NNP B-NP B-PER\nsmith NNP I-NP I-PER\nlikes VBZ B-VP O\nberlin NNP B-NP B-LOC\n";
constexpr const char* kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\nalice\nvisits\nparis\nbob\nworks\nat\nacme\nthe\nnile\nflows\ncarol\nsmith\n"
    "likes\nberlin\n";

class SweepTaskMetricsTest : public ::testing::Test {
 protected:
  SweepTaskMetricsTest() : board_(jetson::open_board("sim:agx-orin-r36", dir_.path() / "board")) {
    fs::create_directories(dir_.path() / "conll");
    std::ofstream(dir_.path() / "conll" / "train.txt") << kSentences;
    std::ofstream(dir_.path() / "conll" / "valid.txt") << kSentences;
    std::ofstream(dir_.path() / "conll" / "vocab.txt") << kVocab;
  }

  proto::RunResult run(const std::string& workload_extra) {
    const std::string data = (dir_.path() / "conll").string();
    const std::string text = "name: \"s\"\nbase {\n  workload { model: \"bert-tiny-ner\" dataset: \"conll2003:" + data +
                             "?vocab=" + data + "/vocab.txt&max_length=16\" batch_size: 4 device: \"cpu\" seed: 1 " +
                             "learning_rate: 0.002 " + workload_extra +
                             " }\n  device { cpu_freq_mhz: 1728 dvfs: OFF }\n}\n";
    const auto plan = sweeps::plan_sweep(sweeps::parse_sweep_spec(text, "sweep.textproto"), "sweep.textproto");
    EXPECT_EQ(plan.runs.size(), 1u);
    CharacterizationExecutor executor(board_);
    auto result = executor.execute(plan.runs.front());
    executor.restore();
    return result;
  }

  testing::TempDir dir_;
  jetson::BoardHandle board_;
};

TEST_F(SweepTaskMetricsTest, DevScoresPerEpochAndTimeAndEnergyToTarget) {
  const auto result = run("epochs: 40 evaluate: true target_f1: 0.99");
  ASSERT_EQ(result.status(), proto::OK) << result.reason();
  ASSERT_EQ(result.epochs_size(), 40);
  for (const auto& epoch : result.epochs()) {
    ASSERT_TRUE(epoch.has_eval_entity_f1()) << "epoch " << epoch.epoch();
    EXPECT_TRUE(epoch.has_eval_entity_precision() && epoch.has_eval_entity_recall() && epoch.has_eval_accuracy());
    EXPECT_TRUE(epoch.has_eval_loss());
    EXPECT_FALSE(epoch.has_eval_squad_f1());
    EXPECT_GE(epoch.eval_entity_f1(), 0.0);
    EXPECT_LE(epoch.eval_entity_f1(), 1.0);
  }
  ASSERT_TRUE(result.has_target());
  const auto& target = result.target();
  EXPECT_DOUBLE_EQ(target.target_f1(), 0.99);
  ASSERT_TRUE(target.has_epoch()) << "best dev F1 " << target.best_f1();
  EXPECT_DOUBLE_EQ(target.best_f1(), 1.0);
  // The first epoch at the target, and the sums of the epochs up to it.
  double time_s = 0, energy_j = 0;
  for (const auto& epoch : result.epochs()) {
    time_s += epoch.e2e_s();
    ASSERT_TRUE(epoch.has_energy_j());  // the simulated board has power rails
    energy_j += epoch.energy_j();
    if (epoch.epoch() < target.epoch()) {
      EXPECT_LT(epoch.eval_entity_f1(), 0.99);
    } else {
      EXPECT_GE(epoch.eval_entity_f1(), 0.99);
      break;
    }
  }
  EXPECT_DOUBLE_EQ(target.time_s(), time_s);
  EXPECT_DOUBLE_EQ(target.energy_j(), energy_j);
  EXPECT_GT(target.energy_j(), 0);
  const auto& reached = result.epochs(static_cast<int>(target.epoch()));
  EXPECT_DOUBLE_EQ(target.wall_s(), reached.start_s() + reached.e2e_s());
  EXPECT_GE(target.wall_s(), target.time_s());  // the evaluations between epochs count in wall time only

  // Stored and exported.
  results::ResultsStore store(dir_.path() / "results.db");
  store.save(result);
  const auto loaded = store.load(result.sweep(), result.run_id());
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->target().epoch(), target.epoch());
  std::ostringstream csv;
  results::export_results({*loaded}, results::ExportFormat::kCsv, csv);
  // The export's 10 significant digits (results/export.cpp).
  EXPECT_NE(csv.str().find(fmt::format(",{},{:.10g},", target.epoch(), target.time_s())), std::string::npos)
      << csv.str();
}

TEST_F(SweepTaskMetricsTest, ATargetWithoutEvaluationOrOutsideZeroToOneIsInvalid) {
  const auto without = run("epochs: 1 target_f1: 0.9");
  EXPECT_EQ(without.status(), proto::INVALID);
  EXPECT_NE(without.reason().find("workload.target_f1 0.9 needs workload.evaluate: true"), std::string::npos)
      << without.reason();
  const auto percent = run("epochs: 1 evaluate: true target_f1: 88.5");
  EXPECT_EQ(percent.status(), proto::INVALID);
  EXPECT_NE(percent.reason().find("target F1 88.5 is not in (0, 1]"), std::string::npos) << percent.reason();
}

TEST_F(SweepTaskMetricsTest, AMissingValidationSplitIsInvalidAndNamesTheFiles) {
  fs::remove(dir_.path() / "conll" / "valid.txt");
  const auto result = run("epochs: 1 evaluate: true");
  EXPECT_EQ(result.status(), proto::INVALID);
  EXPECT_NE(result.reason().find("no CoNLL-2003 validation file (looked for valid.txt, eng.testa)"), std::string::npos)
      << result.reason();
}

}  // namespace
}  // namespace jetchar::experiments
