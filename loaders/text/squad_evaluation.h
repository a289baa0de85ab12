// SQuAD v1.1 exact match and F1, as the official evaluation script (evaluate-v1.1.py) computes them:
// both answers are normalized (lower-cased, ASCII punctuation — Python's string.punctuation —
// removed, the articles a/an/the removed as whole words, whitespace runs collapsed); exact match
// compares the normalized strings, F1 the bags of their whitespace tokens (precision and recall of
// the common tokens); each question scores its best over the gold answers, and a question without
// a prediction scores 0. Totals are percentages over the questions.
//
// Python's str.lower, \b word characters and str.split whitespace are Unicode-aware; here ICU's
// full lower-case mapping, its letter/number categories and its white-space property stand for them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

/// normalize_answer of evaluate-v1.1.py; throws TextFormatError for ill-formed UTF-8.
std::string normalize_squad_answer(std::string_view text);

/// 1 when the normalized strings are equal, else 0.
double squad_exact_match(std::string_view prediction, std::string_view gold);
/// Token-bag F1 of the normalized strings, in [0, 1].
double squad_f1(std::string_view prediction, std::string_view gold);

struct SquadScores {
  std::int64_t questions = 0;
  std::int64_t answered = 0;  ///< questions with a prediction
  double exact_match = 0;     ///< percent
  double f1 = 0;              ///< percent
};

class SquadEvaluator {
 public:
  /// One question: its prediction (nullopt: none) and its gold answers (at least one; throws
  /// std::invalid_argument otherwise).
  void add(const std::optional<std::string>& prediction, const std::vector<std::string>& gold_answers);
  SquadScores scores() const;

 private:
  std::int64_t questions_ = 0;
  std::int64_t answered_ = 0;
  double exact_match_sum_ = 0;
  double f1_sum_ = 0;
};

}  // namespace jetchar::loaders::text
