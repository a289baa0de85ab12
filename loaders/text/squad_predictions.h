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
  /// The predicted answer of question `question` (as QaFeature::question), nullopt when none.
  std::optional<std::string> prediction(std::size_t question) const;
  /// EM and F1 over every question of the data set that has reference answers (a question none
  /// of whose windows was added, or without a valid span, scores 0; SQuAD v2's unanswerable
  /// questions are left out: these are v1.1's metrics).
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
};

}  // namespace jetchar::loaders::text
