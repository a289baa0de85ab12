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
#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

using nlohmann::json;

constexpr const char* kVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nred\nfox\njumps\nover\nlazy\ndog\nnear\nold\nriver\nbank\nwhat\nwho\n"
    "where\nsleeps\n?\n.\n";

// 14 context pieces; with 16 positions and questions of 3 pieces a window holds 10 of them, and
// windows share 4: every question has two windows ([0, 10) and [6, 14)); "red fox" lies wholly in
// the first only, "old river bank" in the second only, "lazy dog" in both.
std::string squad_json() {
  const std::string context = "The red fox jumps over the lazy dog near the old river bank.";
  auto answer = [&](const std::string& text) {
    return json::array({json{{"text", text}, {"answer_start", context.find(text)}}});
  };
  const json qas = json::array({
      json{{"id", "q1"}, {"question", "what jumps?"}, {"answers", answer("red fox")}},
      json{{"id", "q2"}, {"question", "who sleeps?"}, {"answers", answer("lazy dog")}},
      json{{"id", "q3"}, {"question", "where sleeps?"}, {"answers", answer("old river bank")}},
  });
  return json{
      {"version", "1.1"},
      {"data",
       json::array({json{{"title", "t"}, {"paragraphs", json::array({json{{"context", context}, {"qas", qas}}})}}})}}
      .dump();
}

TEST(SquadTrainingTest, DevExactMatchAndF1AfterEveryEpoch) {
  testing::TempDir dir;
  const auto tokenizer = loaders::text::WordPieceTokenizer::from_file(dir.write("vocab.txt", kVocab));
  const loaders::text::WindowOptions windows{.max_length = 16, .stride = 4, .max_first_length = 4, .pad = true};
  auto train_set =
      std::make_shared<loaders::text::SquadDataset>(dir.write("train-v1.1.json", squad_json()), tokenizer, windows);
  auto dev_set =
      std::make_shared<loaders::text::SquadDataset>(dir.write("dev-v1.1.json", squad_json()), tokenizer, windows);
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
