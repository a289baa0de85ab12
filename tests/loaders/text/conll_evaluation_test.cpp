#include "loaders/text/conll_evaluation.h"

#include <gtest/gtest.h>

namespace jetchar::loaders::text {
namespace {

using Tags = std::vector<std::string>;

TEST(ConllEvaluationTest, Iob2ChunksStartAtB) {
  EXPECT_EQ(extract_chunks({"B-PER", "I-PER", "O", "B-LOC", "B-LOC", "I-LOC", "O"}),
            (std::vector<Chunk>{{"PER", 0, 2}, {"LOC", 3, 4}, {"LOC", 4, 6}}));
}

TEST(ConllEvaluationTest, Iob1ChunksStartAtIAndBSeparatesOnlyAdjacentChunksOfOneType) {
  // CoNLL-2003's own files are IOB1: I- opens a chunk after O or another type.
  EXPECT_EQ(extract_chunks({"I-ORG", "I-ORG", "I-PER", "O", "I-LOC", "B-LOC", "I-LOC"}),
            (std::vector<Chunk>{{"ORG", 0, 2}, {"PER", 2, 3}, {"LOC", 4, 5}, {"LOC", 5, 7}}));
}

TEST(ConllEvaluationTest, IobesAndChunksAtTheSentenceEnd) {
  EXPECT_EQ(extract_chunks({"S-PER", "B-ORG", "E-ORG", "I-MISC"}),
            (std::vector<Chunk>{{"PER", 0, 1}, {"ORG", 1, 3}, {"MISC", 3, 4}}));
  EXPECT_TRUE(extract_chunks({"O", "O"}).empty());
  EXPECT_TRUE(extract_chunks({}).empty());
}

TEST(ConllEvaluationTest, SeqevalReadmeExample) {
  // seqeval's README: f1_score(y_true, y_pred) = 0.50 (one of two gold chunks, one of two predicted).
  EntityEvaluator evaluator;
  evaluator.add({"O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"},
                {"O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"});
  evaluator.add({"B-PER", "I-PER", "O"}, {"B-PER", "I-PER", "O"});
  const auto& overall = evaluator.scores().overall;
  EXPECT_EQ(overall.correct, 1);
  EXPECT_EQ(overall.predicted, 2);
  EXPECT_EQ(overall.gold, 2);
  EXPECT_DOUBLE_EQ(overall.precision(), 0.5);
  EXPECT_DOUBLE_EQ(overall.recall(), 0.5);
  EXPECT_DOUBLE_EQ(overall.f1(), 0.5);
  EXPECT_DOUBLE_EQ(evaluator.scores().by_type.at("PER").f1(), 1.0);
  EXPECT_DOUBLE_EQ(evaluator.scores().by_type.at("MISC").f1(), 0.0);
}

TEST(ConllEvaluationTest, HandComputedScoresWithWrongTypesAndBoundaries) {
  // Gold: PER[0,2) ORG[3,4) LOC[5,6); predicted: PER[0,2) (right), LOC[3,4) (wrong type),
  // LOC[5,7) (wrong end), MISC[8,9) (spurious). Correct 1, predicted 4, gold 3:
  // P = 1/4, R = 1/3, F1 = 2PR/(P+R) = (1/6)/(7/12) = 2/7.
  EntityEvaluator evaluator;
  evaluator.add({"B-PER", "I-PER", "O", "B-ORG", "O", "B-LOC", "O", "O", "O"},
                {"B-PER", "I-PER", "O", "B-LOC", "O", "B-LOC", "I-LOC", "O", "B-MISC"});
  const auto& overall = evaluator.scores().overall;
  EXPECT_DOUBLE_EQ(overall.precision(), 0.25);
  EXPECT_DOUBLE_EQ(overall.recall(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(overall.f1(), 2.0 / 7);
  EXPECT_EQ(evaluator.scores().by_type.at("LOC").predicted, 2);
  EXPECT_EQ(evaluator.scores().by_type.at("LOC").correct, 0);
  EXPECT_EQ(evaluator.scores().by_type.at("ORG").gold, 1);
}

TEST(ConllEvaluationTest, Iob1AndIob2TagsOfTheSameEntitiesScoreTheSame) {
  EntityEvaluator evaluator;
  evaluator.add({"I-PER", "I-PER", "O", "I-LOC", "B-LOC"}, {"B-PER", "I-PER", "O", "B-LOC", "B-LOC"});
  EXPECT_DOUBLE_EQ(evaluator.scores().overall.f1(), 1.0);
}

TEST(ConllEvaluationTest, NoChunksScoreZeroAndLengthsMustAgree) {
  EntityEvaluator evaluator;
  evaluator.add({"O"}, {"O"});
  EXPECT_EQ(evaluator.scores().overall.f1(), 0.0);
  try {
    evaluator.add({"O", "O"}, {"O"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "sentence 1: 2 gold tags but 1 predicted tags; both must tag every token");
  }
}

}  // namespace
}  // namespace jetchar::loaders::text
