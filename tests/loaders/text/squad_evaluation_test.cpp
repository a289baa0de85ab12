#include "loaders/text/squad_evaluation.h"

#include <gtest/gtest.h>

#include "loaders/text/text_error.h"

namespace jetchar::loaders::text {
namespace {

TEST(SquadEvaluationTest, NormalizesAsTheOfficialScript) {
  EXPECT_EQ(normalize_squad_answer("The Denver Broncos!"), "denver broncos");
  EXPECT_EQ(normalize_squad_answer("  an  Apple,  a day "), "apple day");
  // Articles only as whole words; punctuation goes before the article test ("the-end" -> "theend").
  EXPECT_EQ(normalize_squad_answer("Theatre of the Absurd"), "theatre of absurd");
  EXPECT_EQ(normalize_squad_answer("the-end"), "theend");
  EXPECT_EQ(normalize_squad_answer("A.D. 1066"), "ad 1066");
  // Unicode: lower-cased, non-ASCII punctuation kept, Unicode spaces collapsed.
  EXPECT_EQ(normalize_squad_answer("\xC3\x89"
                                   "COLE\xC2\xA0the \xE2\x80\x94 Paris"),
            "\xC3\xA9"
            "cole \xE2\x80\x94 paris");
  EXPECT_EQ(normalize_squad_answer("the a an"), "");
  EXPECT_THROW(normalize_squad_answer("\xff"), TextFormatError);
}

TEST(SquadEvaluationTest, ExactMatchAndTokenF1) {
  EXPECT_EQ(squad_exact_match("the Denver Broncos", "Denver Broncos."), 1.0);
  EXPECT_EQ(squad_exact_match("Denver", "Denver Broncos"), 0.0);
  // 2 common tokens, 3 predicted, 2 gold: P 2/3, R 1, F1 0.8.
  EXPECT_DOUBLE_EQ(squad_f1("Denver Broncos won", "Denver Broncos"), 0.8);
  // Bags, not sets: "the the cat" -> "cat"; "cat cat dog" vs "cat dog dog": common 2 of 3 each.
  EXPECT_DOUBLE_EQ(squad_f1("cat cat dog", "cat dog dog"), 2.0 / 3);
  EXPECT_EQ(squad_f1("", "Denver"), 0.0);
  EXPECT_EQ(squad_f1("the", "a"), 0.0);  // both normalize to nothing: v1.1 scores 0
}

TEST(SquadEvaluationTest, BestOverGoldAnswersAndMissingPredictionsScoreZero) {
  SquadEvaluator evaluator;
  evaluator.add(std::string("Santa Clara, California"),
                {"Levi's Stadium", "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California",
                 "Santa Clara, California"});                                       // EM 1, F1 1
  evaluator.add(std::string("Denver Broncos won"), {"Denver Broncos", "Broncos"});  // EM 0, F1 max(0.8, 0.5)
  evaluator.add(std::nullopt, {"Carolina Panthers"});                               // unanswered: 0, 0
  const auto scores = evaluator.scores();
  EXPECT_EQ(scores.questions, 3);
  EXPECT_EQ(scores.answered, 2);
  EXPECT_DOUBLE_EQ(scores.exact_match, 100.0 / 3);
  EXPECT_DOUBLE_EQ(scores.f1, 100.0 * 1.8 / 3);
  EXPECT_THROW(evaluator.add(std::string("x"), {}), std::invalid_argument);
}

TEST(SquadEvaluationTest, V2F1ScoresNoAnswerAgainstNoAnswer) {
  // evaluate-v2.0.py's compute_f1: when either side normalizes to nothing, 1 if both do, else 0.
  EXPECT_EQ(squad_v2_f1("", ""), 1.0);
  EXPECT_EQ(squad_v2_f1("the", ""), 1.0);
  EXPECT_EQ(squad_v2_f1("the", "a"), 1.0);  // v1.1's squad_f1 scores this 0
  EXPECT_EQ(squad_v2_f1("", "Denver"), 0.0);
  EXPECT_EQ(squad_v2_f1("Denver", ""), 0.0);
  EXPECT_DOUBLE_EQ(squad_v2_f1("Denver Broncos won", "Denver Broncos"), 0.8);
}

TEST(SquadEvaluationTest, V2ScoresNoAnswerQuestionsAndSplitsHasAnsFromNoAns) {
  SquadEvaluator evaluator(SquadVersion::kV2_0);
  evaluator.add(std::string(""), {});                                               // NoAns: 1, 1
  evaluator.add(std::string("Denver"), {});                                         // NoAns: 0, 0
  evaluator.add(std::string("The"), {});                                            // NoAns: "" after normalizing: 1, 1
  evaluator.add(std::string(""), {"Denver Broncos"});                               // HasAns: 0, 0
  evaluator.add(std::string("Denver Broncos won"), {"Denver Broncos", "Broncos"});  // HasAns: 0, 0.8
  evaluator.add(std::nullopt, {"Carolina Panthers"});                               // HasAns, unanswered: 0, 0
  evaluator.add(std::string(""), {"The"});  // HasAns (it has answers), but its gold is "" alone: 1, 1
  const auto scores = evaluator.scores();
  EXPECT_EQ(scores.questions, 7);
  EXPECT_EQ(scores.answered, 6);
  EXPECT_DOUBLE_EQ(scores.exact_match, 300.0 / 7);
  EXPECT_NEAR(scores.f1, 380.0 / 7, 1e-9);
  ASSERT_TRUE(scores.has_answer.has_value());
  EXPECT_EQ(scores.has_answer->questions, 4);
  EXPECT_DOUBLE_EQ(scores.has_answer->exact_match, 25);
  EXPECT_NEAR(scores.has_answer->f1, 45, 1e-9);
  ASSERT_TRUE(scores.no_answer.has_value());
  EXPECT_EQ(scores.no_answer->questions, 3);
  EXPECT_DOUBLE_EQ(scores.no_answer->exact_match, 200.0 / 3);
  EXPECT_DOUBLE_EQ(scores.no_answer->f1, 200.0 / 3);
}

TEST(SquadEvaluationTest, V2WithoutUnanswerableQuestionsHasNoNoAnsFigures) {
  SquadEvaluator v2(SquadVersion::kV2_0);
  v2.add(std::string("Broncos"), {"Denver Broncos"});  // EM 0, F1 2 * (1 * 1/2) / (1 + 1/2) = 2/3
  const auto scores = v2.scores();
  EXPECT_NEAR(scores.f1, 200.0 / 3, 1e-9);
  ASSERT_TRUE(scores.has_answer.has_value());
  EXPECT_NEAR(scores.has_answer->f1, 200.0 / 3, 1e-9);
  EXPECT_FALSE(scores.no_answer.has_value());
  // v1.1 reports no split.
  SquadEvaluator v1;
  v1.add(std::string("Broncos"), {"Denver Broncos"});
  EXPECT_FALSE(v1.scores().has_answer.has_value());
  EXPECT_FALSE(v1.scores().no_answer.has_value());
}

}  // namespace
}  // namespace jetchar::loaders::text
