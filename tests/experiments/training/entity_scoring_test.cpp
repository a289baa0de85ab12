#include "experiments/training/entity_scoring.h"

#include <gtest/gtest.h>

namespace jetchar::experiments {
namespace {

const std::vector<std::string> kLabels = {"O", "B-PER", "I-PER", "B-LOC", "I-LOC"};

// Logits that make `ids` the argmax of each position.
torch::Tensor logits_for(const std::vector<std::vector<std::int64_t>>& ids) {
  const auto rows = static_cast<std::int64_t>(ids.size());
  const auto columns = static_cast<std::int64_t>(ids[0].size());
  auto logits = torch::zeros({rows, columns, static_cast<std::int64_t>(kLabels.size())});
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < columns; ++c)
      logits[r][c][ids[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]] = 1.0;
  }
  return logits;
}

TEST(EntityScoringTest, ScoresTheLabelledPiecesOfEachSentence) {
  // Row 0: [CLS] Ann(B-PER) ##e(-100) lives(O) in(O) Rome(B-LOC) [SEP]: the prediction gets PER right
  // and calls Rome PER. Its "##e" piece predicts B-LOC, which is not scored.
  // Row 1: [CLS] New(B-LOC) York(I-LOC) [SEP] pad pad pad: predicted New(B-LOC) York(O): LOC[1,2) wrong end.
  const auto targets = torch::tensor({-100, 1, -100, 0, 0, 3, -100, -100, 3, 4, -100, -100, -100, -100}).view({2, 7});
  const auto logits = logits_for({{0, 1, 3, 0, 0, 1, 0}, {0, 3, 0, 0, 0, 0, 0}});
  loaders::text::EntityEvaluator evaluator;
  add_entity_predictions(evaluator, logits, targets, kLabels);
  const auto& overall = evaluator.scores().overall;
  // Gold: PER, LOC, LOC; predicted: PER (right), PER (wrong type), LOC (wrong end).
  EXPECT_EQ(overall.gold, 3);
  EXPECT_EQ(overall.predicted, 3);
  EXPECT_EQ(overall.correct, 1);
  EXPECT_DOUBLE_EQ(overall.f1(), 1.0 / 3);
}

TEST(EntityScoringTest, AnUnnamedLabelIsAnError) {
  loaders::text::EntityEvaluator evaluator;
  const auto targets = torch::tensor({7}).view({1, 1});
  EXPECT_THROW(add_entity_predictions(evaluator, logits_for({{0}}), targets, kLabels), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::experiments
