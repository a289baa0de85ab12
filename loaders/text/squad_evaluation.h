// SQuAD v1.1 exact match and F1, as the official evaluation script (evaluate-v1.1.py) computes them:
// both answers are normalized (lower-cased, ASCII punctuation — Python's string.punctuation —
// removed, the articles a/an/the removed as whole words, whitespace runs collapsed); exact match
// compares the normalized strings, F1 the bags of their whitespace tokens (precision and recall of
// the common tokens); each question scores its best over the gold answers, and a question without
// a prediction scores 0. Totals are percentages over the questions.
//
// SQuAD v2.0, as its official evaluation script (evaluate-v2.0.py, get_raw_scores, compute_f1 and
// make_eval_dict) scores it: the same normalization and exact match; a question's gold answers are
// those whose normalized text is not empty, and a question without any (unanswerable: is_impossible,
// "answers": []) has the one gold answer "" (no answer). F1 is 1 when the prediction and the gold
// answer are both empty after normalization, 0 when only one is, else the token F1 above. So the
// null prediction "" scores EM = F1 = 1 on an unanswerable question and 0 on an answerable one, and
// a span scores 0 on an unanswerable question (unless it normalizes to nothing, "the": then 1, as
// the script has it). Besides the totals the script reports HasAns_ and NoAns_ figures over the
// questions with and without reference answers. One difference: the script leaves a question
// without a prediction out of its totals; here it counts and scores 0, as in v1.1.
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
/// Token-bag F1 of the normalized strings, in [0, 1] (v1.1: 0 when either normalizes to nothing).
double squad_f1(std::string_view prediction, std::string_view gold);
/// compute_f1 of evaluate-v2.0.py: as squad_f1, except that when either normalizes to nothing
/// (no answer) it is 1 if both do, else 0.
double squad_v2_f1(std::string_view prediction, std::string_view gold);

/// Which official script scores the questions.
enum class SquadVersion { kV1_1, kV2_0 };

/// EM and F1 over some of the questions.
struct SquadSubsetScores {
  std::int64_t questions = 0;
  double exact_match = 0;  ///< percent
  double f1 = 0;           ///< percent
};

struct SquadScores {
  std::int64_t questions = 0;
  std::int64_t answered = 0;  ///< questions with a prediction (in v2.0 the null answer "" is one)
  double exact_match = 0;     ///< percent
  double f1 = 0;              ///< percent
  /// v2.0 only (evaluate-v2.0.py's HasAns_ and NoAns_ figures): over the questions with reference
  /// answers and over those without; nullopt for v1.1 and for a subset without questions.
  std::optional<SquadSubsetScores> has_answer;
  std::optional<SquadSubsetScores> no_answer;
};

class SquadEvaluator {
 public:
  explicit SquadEvaluator(SquadVersion version = SquadVersion::kV1_1) : version_(version) {}

  /// One question: its prediction (nullopt: none) and its gold answers. v1.1 needs at least one
  /// (throws std::invalid_argument otherwise); in v2.0 none means unanswerable.
  void add(const std::optional<std::string>& prediction, const std::vector<std::string>& gold_answers);
  SquadScores scores() const;

 private:
  struct Sums {
    std::int64_t questions = 0;
    double exact_match = 0;
    double f1 = 0;
  };
  SquadVersion version_;
  std::int64_t answered_ = 0;
  Sums has_answer_;
  Sums no_answer_;  ///< v2.0 only
};

}  // namespace jetchar::loaders::text
