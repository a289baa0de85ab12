// From a question-answering model's start and end logits to SQuAD answers, as Hugging Face's
// run_qa.py post-processing (utils_qa.py, postprocess_qa_predictions) and BERT's run_squad.py
// choose them: in each window, the n_best_size highest start logits are paired with the
// n_best_size highest end logits; a pair counts when both positions lie in the window's context,
// start <= end and the span has at most max_answer_length pieces; its score is start logit + end
// logit. A question's answer is its best-scoring span over all its windows, cut out of the
// original context through the pieces' offsets (SquadDataset::span_text), and scored with the
// official EM/F1 (squad_evaluation.h). A question with no valid span in any window has no
// prediction and scores 0 (run_qa.py predicts the text "empty" there, which matches no answer).
//
// SQuAD v2.0 (SquadDataset::version_2(), run_qa.py's --version_2_with_negative): the null answer
// is the [CLS] position (start = end = 0); a question's null score is the smallest start logit +
// end logit at position 0 over its windows, and it predicts no answer ("") when the null score
// minus its best span's score exceeds null_score_diff_threshold (strictly, as utils_qa.py and
// BERT's run_squad.py compare), else its best span. Without any valid span it predicts "" (as the
// TensorFlow Model Garden's squad_lib does; run_qa.py compares the null score with the 0 of its
// "empty" placeholder). It is scored as evaluate-v2.0.py scores (squad_evaluation.h).
//
// Ties: among equal logits the earlier position ranks first, among equal scores the earlier
// window and then the earlier start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loaders/text/squad_dataset.h"
#include "loaders/text/squad_evaluation.h"

namespace jetchar::loaders::text {

struct SquadSpanOptions {
  /// Start and end candidates per window (run_qa.py's --n_best_size, BERT's n_best_size: 20).
  std::size_t n_best_size = 20;
  /// Longest answer in pieces (run_qa.py's and BERT's max_answer_length: 30).
  std::size_t max_answer_length = 30;
  /// SQuAD v2.0 only: predict no answer when the null score exceeds the best span's score by more
  /// than this (run_qa.py's --null_score_diff_threshold, BERT's null_score_diff_threshold: 0).
  double null_score_diff_threshold = 0;
};

/// A span of sample positions [start, end] and its score.
struct SpanCandidate {
  std::int64_t start = 0;
  std::int64_t end = 0;
  double score = 0;
  friend bool operator==(const SpanCandidate&, const SpanCandidate&) = default;
};

/// The valid spans of one window, best first (at most n_best_size): `start_logits` and
/// `end_logits` have one entry per sample position, and [context_first, context_last] are the
/// window's context positions. Throws std::invalid_argument when the two sizes differ, the
/// context positions are outside them, or an option is 0.
std::vector<SpanCandidate> best_window_spans(std::span<const float> start_logits, std::span<const float> end_logits,
                                             std::int64_t context_first, std::int64_t context_last,
                                             const SquadSpanOptions& options = {});

/// Collects the windows of a SQuAD data set, in any order, and answers and scores its questions.
class SquadPredictions {
 public:
  /// `dataset` must outlive this object.
  explicit SquadPredictions(const SquadDataset& dataset, SquadSpanOptions options = {});

  /// The logits of sample `sample` (one window). Throws std::invalid_argument when `sample` is
  /// out of range or the logits do not have the sample's length.
  void add(std::int64_t sample, std::span<const float> start_logits, std::span<const float> end_logits);

  /// Windows added so far.
  std::int64_t windows() const { return windows_; }
  /// The predicted answer of question `question` (as QaFeature::question), nullopt when none
  /// (no window of it was added, or, in v1.1, none had a valid span); "" is v2.0's no answer.
  std::optional<std::string> prediction(std::size_t question) const;
  /// EM and F1 over every question of the data set (a question without a prediction scores 0):
  /// v1.1's metrics, or v2.0's with its HasAns and NoAns figures for a v2.0 data set.
  SquadScores scores() const;

 private:
  struct Best {
    std::int64_t sample = 0;
    SpanCandidate span;
  };
  const SquadDataset* dataset_;
  SquadSpanOptions options_;
  std::int64_t windows_ = 0;
  std::vector<std::optional<Best>> best_;  ///< by question
  /// v2.0: the smallest null score over each question's windows so far (nullopt: none added).
  std::vector<std::optional<double>> null_score_;
};

}  // namespace jetchar::loaders::text
