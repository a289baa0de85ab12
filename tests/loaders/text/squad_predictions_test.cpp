#include "loaders/text/squad_predictions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "tests/support/temp_dir.h"

namespace jetchar::loaders::text {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

TEST(BestWindowSpansTest, PairsTheTopStartsAndEndsInsideTheContext) {
  // Context positions 3..8 of 10. Top-3 starts: 0 (9, outside), 4 (5), 6 (4); top-3 ends: 0 (9),
  // 8 (6), 5 (3). Valid pairs with at most 3 pieces: (6, 8) = 4 + 6 and (4, 5) = 5 + 3; (4, 8)
  // has 5 pieces and every pair with end 0 ends before it starts.
  const std::vector<float> start{9, 0, 0, 0, 5, 0, 4, 1, 0, 0};
  const std::vector<float> end{9, 0, 0, 2, 0, 3, 0, 0, 6, 0};
  const SquadSpanOptions short_spans{.n_best_size = 3, .max_answer_length = 3};
  EXPECT_THAT(best_window_spans(start, end, 3, 8, short_spans),
              ElementsAre(SpanCandidate{6, 8, 10}, SpanCandidate{4, 5, 8}));
  // Five pieces allowed: (4, 8) = 11 comes first.
  const SquadSpanOptions long_spans{.n_best_size = 3, .max_answer_length = 5};
  EXPECT_THAT(best_window_spans(start, end, 3, 8, long_spans),
              ElementsAre(SpanCandidate{4, 8, 11}, SpanCandidate{6, 8, 10}, SpanCandidate{4, 5, 8}));
  // One start and one end only: the pair (0, 0) lies outside the context, so nothing is valid.
  EXPECT_TRUE(best_window_spans(start, end, 3, 8, {.n_best_size = 1, .max_answer_length = 30}).empty());
  // The context's last position bounds the end: with context 3..7, end 8 is out.
  EXPECT_THAT(best_window_spans(start, end, 3, 7, short_spans), ElementsAre(SpanCandidate{4, 5, 8}));
}

TEST(BestWindowSpansTest, BadArgumentsAreErrors) {
  const std::vector<float> four(4), three(3);
  EXPECT_THROW((void)best_window_spans(four, three, 1, 2), std::invalid_argument);
  EXPECT_THROW((void)best_window_spans(four, four, 1, 4), std::invalid_argument);
  EXPECT_THROW((void)best_window_spans(four, four, 2, 1), std::invalid_argument);
  EXPECT_THROW((void)best_window_spans(four, four, 1, 2, {.n_best_size = 0, .max_answer_length = 3}),
               std::invalid_argument);
}

// ids: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 where=4 is=5 the=6 tower=7 ?=8 cafe=9 naive=10 東=11 京=12
// has=13 a=14 .=15 un=16 ##aff=17 ##able=18
constexpr const char* kPredictionsVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\nwhere\nis\nthe\ntower\n?\ncafe\nnaive\n東\n京\nhas\na\n.\nun\n##aff\n##able\n";

std::string dev_json() {
  const json qas = json::array({
      json{{"id", "q-tokyo"},
           {"question", "Where is the tower?"},
           {"answers", json::array({json{{"text", "東京"}, {"answer_start", 11}}})}},
      json{{"id", "q-naive"},
           {"question", "Where?"},
           {"answers", json::array({json{{"text", "ïve"}, {"answer_start", 7}}})}},
  });
  const json second = json::array({json{{"id", "q-un"},
                                        {"question", "the"},
                                        {"answers", json::array({json{{"text", "able"}, {"answer_start", 5}},
                                                                 json{{"text", "unaffable"}, {"answer_start", 0}}})}}});
  return json{
      {"version", "1.1"},
      {"data",
       json::array({json{{"title", "t"},
                         {"paragraphs", json::array({json{{"context", "Café naïve 東京 has a tower."}, {"qas", qas}},
                                                     json{{"context", "unaffable"}, {"qas", second}}})}}})}}
      .dump();
}

class SquadPredictionsTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  WordPieceTokenizer tokenizer_ = WordPieceTokenizer::from_file(dir_.write("vocab.txt", kPredictionsVocab));
  // 12 positions, windows share 1 piece. Samples: q-tokyo 0..2 (pieces [0,4) [3,7) [6,8) at
  // positions 7..), q-naive 3..4 ([0,7) [6,8) at 4..), q-un 5 (un ##aff ##able at 3..5).
  SquadDataset dataset_{dir_.write("dev-v1.1.json", dev_json()), tokenizer_,
                        WindowOptions{.max_length = 12, .stride = 1, .max_first_length = 6, .pad = true}};

  struct Logits {
    std::vector<float> start = std::vector<float>(12), end = std::vector<float>(12);
  };
  static Logits span(std::int64_t start, std::int64_t end, float logit) {
    Logits l;
    l.start[static_cast<std::size_t>(start)] = logit;
    l.end[static_cast<std::size_t>(end)] = logit;
    return l;
  }
};

TEST_F(SquadPredictionsTest, TheBestSpanOverAllWindowsIsCutFromTheContextAndScored) {
  ASSERT_EQ(dataset_.size(), 6);
  SquadPredictions predictions(dataset_);
  // q-tokyo: window 0 (pieces 0..3 at positions 7..10) proposes naïve 東京 (pieces 1..3,
  // positions 8..10, score 4); window 1 a tower (pieces 5..6, score 2); window 2 puts its
  // largest logits on the question (position 1: never an answer). The best is window 0's.
  const auto w0 = span(8, 10, 2), w1 = span(9, 10, 1), w2 = span(1, 1, 50);
  predictions.add(1, w1.start, w1.end);
  predictions.add(2, w2.start, w2.end);
  predictions.add(0, w0.start, w0.end);
  // q-naive: naïve (piece 1, position 5), with its accent as written.
  const auto naive = span(5, 5, 3);
  predictions.add(3, naive.start, naive.end);
  // q-un: the whole word.
  const auto un = span(3, 5, 3);
  predictions.add(5, un.start, un.end);
  EXPECT_EQ(predictions.windows(), 5);
  EXPECT_EQ(predictions.prediction(0), "naïve 東京");
  EXPECT_EQ(predictions.prediction(1), "naïve");
  EXPECT_EQ(predictions.prediction(2), "unaffable");
  // EM: 0, 0, 1 (unaffable is the second gold answer). F1: naïve 東京 vs 東京 = 2 * (1/2 * 1) / (1/2 + 1)
  // = 2/3; naïve vs ïve = 0; 1.
  const auto scores = predictions.scores();
  EXPECT_EQ(scores.questions, 3);
  EXPECT_EQ(scores.answered, 3);
  EXPECT_NEAR(scores.exact_match, 100.0 / 3, 1e-9);
  EXPECT_NEAR(scores.f1, 100.0 * (2.0 / 3 + 1) / 3, 1e-9);
}

TEST_F(SquadPredictionsTest, MaxAnswerLengthAndMissingWindowsLowerTheScore) {
  SquadPredictions predictions(dataset_, {.n_best_size = 20, .max_answer_length = 2});
  // naïve 東京 is 3 pieces: too long. The best 2-piece span is 東京 (positions 9..10: 1 + 2).
  Logits w0 = span(8, 10, 2);
  w0.start[9] = 1;
  predictions.add(0, w0.start, w0.end);
  EXPECT_EQ(predictions.prediction(0), "東京");
  // No window of q-naive or q-un was added: no prediction, scored 0.
  EXPECT_FALSE(predictions.prediction(1).has_value());
  const auto scores = predictions.scores();
  EXPECT_EQ(scores.questions, 3);
  EXPECT_EQ(scores.answered, 1);
  EXPECT_NEAR(scores.exact_match, 100.0 / 3, 1e-9);
  EXPECT_NEAR(scores.f1, 100.0 / 3, 1e-9);
}

// The same file as SQuAD v2.0 (dev-v2.0.json's "version": "v2.0"): q-naive is unanswerable.
std::string dev_v2_json() {
  json data = json::parse(dev_json());
  data["version"] = "v2.0";
  auto& naive = data["data"][0]["paragraphs"][0]["qas"][1];
  naive["answers"] = json::array();
  naive["is_impossible"] = true;
  return data.dump();
}

class SquadV2PredictionsTest : public SquadPredictionsTest {
 protected:
  // The same windows as dev-v1.1.json's: q-tokyo 0..2, q-naive 3..4, q-un 5.
  SquadDataset dataset_v2_{dir_.write("dev-v2.0.json", dev_v2_json()), tokenizer_,
                           WindowOptions{.max_length = 12, .stride = 1, .max_first_length = 6, .pad = true}};

  static Logits with_null(Logits logits, float null_logit) {
    logits.start[0] = null_logit;
    logits.end[0] = null_logit;
    return logits;
  }

  // q-tokyo: window 0 proposes 東京 (positions 9..10, 3 + 3 = 6) with null score 2 + 2 = 4;
  // window 1 has null score 10 and only 0-scored spans. The question's null score is its
  // smallest, 4: 4 - 6 = -2. q-naive (unanswerable): naïve (position 5, 2 + 2 = 4), null 6:
  // 6 - 4 = 2. q-un: unaffable (3..5, 4), null 6: 2.
  void add_windows(SquadPredictions& predictions) const {
    const auto tokyo = with_null(span(9, 10, 3), 2), tokyo_later = with_null(Logits{}, 5);
    predictions.add(1, tokyo_later.start, tokyo_later.end);
    predictions.add(0, tokyo.start, tokyo.end);
    const auto naive = with_null(span(5, 5, 2), 3);
    predictions.add(3, naive.start, naive.end);
    const auto un = with_null(span(3, 5, 2), 3);
    predictions.add(5, un.start, un.end);
  }
};

TEST_F(SquadV2PredictionsTest, TheNullAnswerWinsWhenItsScoreBeatsTheBestSpan) {
  ASSERT_TRUE(dataset_v2_.version_2());
  ASSERT_EQ(dataset_v2_.size(), 6);
  SquadPredictions predictions(dataset_v2_);
  add_windows(predictions);
  // Threshold 0: q-tokyo -2 -> its span; q-naive 2 -> "" (right); q-un 2 -> "" (wrong).
  EXPECT_EQ(predictions.prediction(0), "東京");
  EXPECT_EQ(predictions.prediction(1), "");
  EXPECT_EQ(predictions.prediction(2), "");
  // evaluate-v2.0.py: q-tokyo 1/1, q-naive's gold is "" alone, so "" scores 1/1, q-un 0/0.
  const auto scores = predictions.scores();
  EXPECT_EQ(scores.questions, 3);
  EXPECT_EQ(scores.answered, 3);
  EXPECT_NEAR(scores.exact_match, 200.0 / 3, 1e-9);
  EXPECT_NEAR(scores.f1, 200.0 / 3, 1e-9);
  ASSERT_TRUE(scores.has_answer.has_value());
  EXPECT_EQ(scores.has_answer->questions, 2);
  EXPECT_DOUBLE_EQ(scores.has_answer->exact_match, 50);
  EXPECT_DOUBLE_EQ(scores.has_answer->f1, 50);
  ASSERT_TRUE(scores.no_answer.has_value());
  EXPECT_EQ(scores.no_answer->questions, 1);
  EXPECT_DOUBLE_EQ(scores.no_answer->exact_match, 100);
  EXPECT_DOUBLE_EQ(scores.no_answer->f1, 100);
}

TEST_F(SquadV2PredictionsTest, TheThresholdIsStrictAndASpanOnAnUnanswerableQuestionScoresZero) {
  SquadPredictions predictions(dataset_v2_,
                               {.n_best_size = 20, .max_answer_length = 30, .null_score_diff_threshold = 2});
  add_windows(predictions);
  // A difference of 2 does not exceed 2: every question takes its span.
  EXPECT_EQ(predictions.prediction(0), "東京");
  EXPECT_EQ(predictions.prediction(1), "naïve");
  EXPECT_EQ(predictions.prediction(2), "unaffable");
  // q-tokyo 1/1, q-naive: naïve against "" scores 0/0, q-un 1/1 (its second gold answer).
  const auto scores = predictions.scores();
  EXPECT_NEAR(scores.exact_match, 200.0 / 3, 1e-9);
  EXPECT_NEAR(scores.f1, 200.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(scores.has_answer->exact_match, 100);
  EXPECT_DOUBLE_EQ(scores.has_answer->f1, 100);
  EXPECT_DOUBLE_EQ(scores.no_answer->exact_match, 0);
  EXPECT_DOUBLE_EQ(scores.no_answer->f1, 0);
}

TEST_F(SquadV2PredictionsTest, NoValidSpanIsNoAnswerAndAQuestionWithoutWindowsHasNoPrediction) {
  // One start and one end candidate, both at [CLS]: no span lies in the context.
  SquadPredictions predictions(dataset_v2_, {.n_best_size = 1, .max_answer_length = 30});
  const auto null_only = with_null(Logits{}, 1);
  predictions.add(3, null_only.start, null_only.end);
  EXPECT_EQ(predictions.prediction(1), "");
  EXPECT_FALSE(predictions.prediction(0).has_value());
  EXPECT_FALSE(predictions.prediction(2).has_value());
  // q-naive 1/1; q-tokyo and q-un have no prediction: counted, 0.
  const auto scores = predictions.scores();
  EXPECT_EQ(scores.questions, 3);
  EXPECT_EQ(scores.answered, 1);
  EXPECT_NEAR(scores.exact_match, 100.0 / 3, 1e-9);
  EXPECT_NEAR(scores.f1, 100.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(scores.has_answer->exact_match, 0);
  EXPECT_DOUBLE_EQ(scores.no_answer->f1, 100);
}

TEST_F(SquadPredictionsTest, AV11DataSetNeverPredictsNoAnswer) {
  ASSERT_FALSE(dataset_.version_2());
  SquadPredictions predictions(dataset_);
  // A null score far above the span's: v1.1 has no null answer, the span stands.
  Logits naive = span(5, 5, 1);
  naive.start[0] = 100;
  naive.end[0] = 100;
  predictions.add(3, naive.start, naive.end);
  EXPECT_EQ(predictions.prediction(1), "naïve");
  const auto scores = predictions.scores();
  EXPECT_FALSE(scores.has_answer.has_value());
  EXPECT_FALSE(scores.no_answer.has_value());
}

TEST_F(SquadPredictionsTest, BadSamplesAndLogitSizesAreErrors) {
  SquadPredictions predictions(dataset_);
  const std::vector<float> twelve(12), eleven(11);
  EXPECT_THROW(predictions.add(6, twelve, twelve), std::invalid_argument);
  EXPECT_THROW(predictions.add(-1, twelve, twelve), std::invalid_argument);
  EXPECT_THROW(predictions.add(0, eleven, eleven), std::invalid_argument);
  EXPECT_THROW(SquadPredictions(dataset_, {.n_best_size = 0, .max_answer_length = 30}), std::invalid_argument);
  EXPECT_THROW(SquadPredictions(
                   dataset_, {.n_best_size = 20, .max_answer_length = 30, .null_score_diff_threshold = std::nan("")}),
               std::invalid_argument);
  EXPECT_EQ(predictions.windows(), 0);
}

}  // namespace
}  // namespace jetchar::loaders::text
