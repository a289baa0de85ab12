// SQuAD EM/F1 in training, end to end: a tiny BERT trains on a small SQuAD file the test writes,
// long contexts split into overlapping windows, and after every epoch the dev file is answered
// by the n-best span search over the windows and scored with the official EM/F1. Trained long
// enough on questions it can memorise, every answer is exact.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "experiments/models/registry.h"
#include "experiments/training/training_runner.h"
#include "loaders/pipeline.h"
#include "loaders/text/squad_dataset.h"
#include "tests/support/squad_sample.h"
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

TEST(SquadTrainingTest, DevExactMatchAndF1AfterEveryEpoch) {
  testing::TempDir dir;
  const auto tokenizer =
      loaders::text::WordPieceTokenizer::from_file(dir.write("vocab.txt", testing::kSquadSampleVocab));
  const loaders::text::WindowOptions windows{.max_length = 16, .stride = 4, .max_first_length = 4, .pad = true};
  auto train_set = std::make_shared<loaders::text::SquadDataset>(
      dir.write("train-v1.1.json", testing::squad_sample_json(3)), tokenizer, windows);
  auto dev_set = std::make_shared<loaders::text::SquadDataset>(
      dir.write("dev-v1.1.json", testing::squad_sample_json(3)), tokenizer, windows);
  ASSERT_EQ(dev_set->size(), 6);  // two windows per question

  loaders::PipelineOptions options;
  options.batch_size = 4;  // the dev windows come in batches of 4 and 2
  loaders::Pipeline source(train_set, options);
  options.shuffle = false;
  loaders::Pipeline dev(dev_set, options);

  torch::manual_seed(0);
  const auto& spec = find_model("bert-tiny-qa");
  auto model = make_model(spec, std::nullopt);
  TrainingConfig config;
  config.epochs = 40;
  config.learning_rate = 1e-3;
  config.eval_source = &dev;
  config.eval_squad = dev_set.get();
  config.eval_name = "validation: dev-v1.1.json";
  const auto result = train(*model, source, config, sysfs::Root(), spec.name);
  ASSERT_EQ(result.status, RunStatus::kOk) << result.error;
  ASSERT_EQ(result.epochs.size(), 40u);
  for (const auto& epoch : result.epochs) {
    ASSERT_TRUE(epoch.eval_squad_exact_match && epoch.eval_squad_f1) << "epoch " << epoch.epoch;
    EXPECT_GE(*epoch.eval_squad_f1, *epoch.eval_squad_exact_match);  // F1 credits partial overlaps too
    EXPECT_LE(*epoch.eval_squad_f1, 1.0);
    EXPECT_FALSE(epoch.eval_entity_f1);
    EXPECT_EQ(epoch.eval_f1(), epoch.eval_squad_f1);
  }
  EXPECT_EQ(*result.epochs.back().eval_squad_exact_match, 1.0);
  EXPECT_EQ(*result.epochs.back().eval_squad_f1, 1.0);
  const auto json = to_json(result);
  EXPECT_EQ(json["settings"]["eval"], "validation: dev-v1.1.json");
  EXPECT_EQ(json["epochs"].back()["eval_squad_f1"], 1.0);

  // The last epoch's answers, read back through evaluate(): the windows' best spans.
  const auto eval = evaluate(*model, dev, torch::kCPU, std::nullopt, {}, dev_set.get());
  EXPECT_EQ(eval.squad_questions, 3);
  EXPECT_EQ(eval.squad_exact_match, 1.0);
}

}  // namespace
}  // namespace jetchar::experiments
