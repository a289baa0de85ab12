// Masked-LM pretraining as a sweep's run, through the real executor on a simulated AGX Orin:
// bert-tiny-mlm on a corpus the test writes, with a held-out corpus as its validation split. The
// record carries the masked-LM loss and masked-token accuracy per epoch like any run's loss and
// accuracy, and the results store and the export keep them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/report.h"
#include "analysis/results_store_reader.h"
#include "experiments/characterization_executor.h"
#include "jetson/open_board.h"
#include "results/export.h"
#include "results/store.h"
#include "sweeps/plan.h"
#include "sweeps/spec_io.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMaskedLmVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\ndog\nsat\nran\non\nmat\nhill\n.\n";

// The one run of a sweep whose base workload is `workload` (textproto fields, "{data}" standing for
// the folder that holds vocab.txt, corpus.txt and held-out.txt), on a simulated AGX Orin in `dir`.
proto::RunResult run_pretraining(const testing::TempDir& dir, std::string workload) {
  auto board = jetson::open_board("sim:agx-orin-r36", dir.path() / "board");
  std::ofstream(dir.path() / "vocab.txt") << kMaskedLmVocab;
  {
    std::ofstream corpus(dir.path() / "corpus.txt");
    for (int copy = 0; copy < 6; ++copy) {
      corpus << "the cat sat on the mat .\nthe dog ran on the hill .\n\nthe dog sat on the mat .\nthe cat ran .\n\n";
    }
    std::ofstream(dir.path() / "held-out.txt") << "the cat sat on the hill .\nthe dog ran .\n";
  }
  for (std::size_t at; (at = workload.find("{data}")) != std::string::npos;) {
    workload.replace(at, 6, dir.path().string());
  }
  const std::string text =
      "name: \"mlm\"\nbase {\n  workload { " + workload + " }\n  device { cpu_freq_mhz: 1728 dvfs: OFF }\n}\n";
  const auto plan = sweeps::plan_sweep(sweeps::parse_sweep_spec(text, "sweep.textproto"), "sweep.textproto");
  EXPECT_EQ(plan.runs.size(), 1u);
  CharacterizationExecutor executor(board);
  auto result = executor.execute(plan.runs.front());
  executor.restore();
  result.set_sweep("mlm");  // as the sweep runner names a run (sweeps/runner.cpp)
  result.set_run_id(plan.runs.front().run_id);
  return result;
}

TEST(SweepMaskedLmTest, PretrainingRunsRecordsAndExportsItsLossAndAccuracy) {
  testing::TempDir dir;
  const auto result = run_pretraining(
      dir,
      "model: \"bert-tiny-mlm\" dataset: \"corpus:{data}/corpus.txt?max_length=24&dev={data}/held-out.txt\" "
      "batch_size: 4 device: \"cpu\" seed: 1 learning_rate: 0.002 epochs: 3 evaluate: true");
  ASSERT_EQ(result.status(), proto::OK) << result.reason();
  ASSERT_EQ(result.epochs_size(), 3);
  for (const auto& epoch : result.epochs()) {
    ASSERT_TRUE(epoch.has_loss() && epoch.has_accuracy()) << "epoch " << epoch.epoch();
    ASSERT_TRUE(epoch.has_eval_loss() && epoch.has_eval_accuracy()) << "epoch " << epoch.epoch();
    EXPECT_GT(epoch.loss(), 0.0);
    EXPECT_LE(epoch.accuracy(), 1.0);
  }
  EXPECT_LT(result.epochs(2).loss(), result.epochs(0).loss());

  results::ResultsStore store(dir.path() / "results.db");
  store.save(result);
  const auto loaded = store.load(result.sweep(), result.run_id());
  ASSERT_TRUE(loaded.has_value());
  EXPECT_DOUBLE_EQ(loaded->epochs(2).loss(), result.epochs(2).loss());
  EXPECT_DOUBLE_EQ(loaded->epochs(2).accuracy(), result.epochs(2).accuracy());
  std::ostringstream csv;
  results::export_results({*loaded}, results::ExportFormat::kCsv, csv);
  const std::string exported = csv.str();
  const auto header = exported.substr(0, exported.find('\n'));
  EXPECT_NE(header.find(",loss,accuracy,"), std::string::npos) << header;
  EXPECT_NE(exported.find("bert-tiny-mlm"), std::string::npos);
}

// Two phases in one run (workload.phases): phase 2 at twice the length, on phase 1's weights, each
// run for its steps; the record and the store keep each phase's figures and each epoch's phase.
TEST(SweepMaskedLmTest, PretrainingInTwoPhasesRecordsEachPhase) {
  testing::TempDir dir;
  const auto result = run_pretraining(dir,
                                      "model: \"bert-tiny-mlm\" dataset: \"corpus:{data}/corpus.txt\" batch_size: 4 "
                                      "device: \"cpu\" seed: 1 learning_rate: 0.002\n"
                                      "    phases { sequence_length: 12 steps: 5 }\n"
                                      "    phases { sequence_length: 24 steps: 3 batch_size: 2 accumulate: 2 }");
  ASSERT_EQ(result.status(), proto::OK) << result.reason();
  ASSERT_EQ(result.phases_size(), 2);
  const auto& one = result.phases(0);
  const auto& two = result.phases(1);
  EXPECT_EQ(one.sequence_length(), 12u);
  EXPECT_EQ(one.steps(), 5u);
  // Five minibatches of at most 4 (an epoch's last one may hold fewer).
  EXPECT_GT(one.samples(), 4u * 4);
  EXPECT_LE(one.samples(), 5u * 4);
  EXPECT_EQ(two.sequence_length(), 24u);
  EXPECT_EQ(two.steps(), 3u);
  EXPECT_EQ(two.batch_size(), 2u);
  EXPECT_EQ(two.accumulate(), 2u);
  EXPECT_EQ(two.samples(), 3u * 2 * 2);
  for (const auto& phase : result.phases()) {
    EXPECT_GT(phase.time_s(), 0);
    EXPECT_NEAR(phase.sequences_per_s(), static_cast<double>(phase.samples()) / phase.time_s(), 1e-9);
    EXPECT_TRUE(phase.has_final_loss());
    EXPECT_TRUE(phase.has_energy_j());  // the simulated board's rails
    // Each step's loss, the phase's last epoch's mean among them.
    ASSERT_EQ(phase.step_loss_size(), static_cast<int>(phase.steps()));
    for (const double loss : phase.step_loss()) EXPECT_GT(loss, 0);
  }
  // The epochs are numbered on over the phases, each marked with its phase, and sum to its figures.
  std::uint64_t samples[3] = {0, 0, 0};
  for (int i = 0; i < result.epochs_size(); ++i) {
    EXPECT_EQ(result.epochs(i).epoch(), static_cast<std::uint32_t>(i));
    ASSERT_GE(result.epochs(i).phase(), 1u);
    samples[result.epochs(i).phase()] += result.epochs(i).samples();
  }
  EXPECT_EQ(samples[1], one.samples());
  EXPECT_EQ(samples[2], two.samples());
  EXPECT_EQ(result.resolved().workload().phases_size(), 2);

  results::ResultsStore store(dir.path() / "results.db");
  store.save(result);
  const auto loaded = store.load(result.sweep(), result.run_id());
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->phases_size(), 2);
  EXPECT_DOUBLE_EQ(loaded->phases(1).time_s(), two.time_s());
  // The export carries each epoch's phase, and the report reads it back from the store.
  std::ostringstream csv;
  results::export_results({*loaded}, results::ExportFormat::kCsv, csv);
  const std::string exported = csv.str();
  EXPECT_NE(exported.substr(0, exported.find('\n')).find(",phase,"), std::string::npos);
  const auto records = analysis::ResultsStoreReader(dir.path() / "results.db").records();
  ASSERT_EQ(records.size(), static_cast<std::size_t>(result.epochs_size()));
  EXPECT_EQ(records.back().metrics.at("phase"), 2);
  // The store keeps every step's loss, which the report draws over the steps.
  const auto steps = analysis::ResultsStoreReader(dir.path() / "results.db").phase_steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].phase, 2);
  ASSERT_EQ(steps[1].losses.size(), 3u);
  EXPECT_DOUBLE_EQ(*steps[1].losses[2], two.step_loss(2));
  analysis::ReportOptions options;
  options.phase_steps = steps;
  const auto data = analysis::report_data(records, options);
  ASSERT_EQ(data["phases"]["runs"].size(), 1u) << data["phases"].dump();
  EXPECT_EQ(data["phases"]["runs"][0]["loss_over"], "step");
  EXPECT_EQ(data["phases"]["runs"][0]["points"].size(), 8u);
  EXPECT_NE(analysis::render_report(records, options).find("<section id=\"phases\">"), std::string::npos);
}

}  // namespace
}  // namespace jetchar::experiments
