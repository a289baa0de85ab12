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

}  // namespace
}  // namespace jetchar::loaders::text
