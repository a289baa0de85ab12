// SQuAD as an extractive question-answering data set for BERT. Each question is tokenized once
// (cut to max_first_length) and each paragraph once; a context longer than a window is split into
// overlapping windows (WindowOptions::stride tokens shared), and every window is one sample:
// [CLS] question [SEP] context window [SEP] [PAD]..., target {start, end} token positions of the
// (first) answer, or {0, 0} (the [CLS] position) when the answer is not wholly in the window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/text/squad.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace jetchar::loaders::text {

/// One sample: a window of a question's context.
struct QaFeature {
  std::size_t question = 0;
  /// The window's context pieces [begin, end) in its paragraph's pieces.
  std::size_t window_begin = 0;
  std::size_t window_end = 0;
  /// Answer positions in the sample (0, 0 when the answer is not in this window).
  std::int64_t start_position = 0;
  std::int64_t end_position = 0;
};

/// The pieces [first, last] of `context` that overlap code points [start, start + length), or
/// nullopt when none does (an answer made only of spaces or dropped characters).
std::optional<std::pair<std::size_t, std::size_t>> answer_piece_range(const std::vector<WordPiece>& context,
                                                                      std::int64_t start, std::int64_t length);

class SquadDataset : public Dataset {
 public:
  /// The SQuAD file of a split. `path` is a file or a directory; `dev`, when given, names the dev
  /// file. train: `path` itself, or train-v1.1.json / train-v2.0.json in a directory.
  /// validation (valid, dev): `dev`; else dev-v1.1.json / dev-v2.0.json in a directory; else the
  /// file beside `path` whose name has "dev" for its "train" (train-v1.1.json -> dev-v1.1.json).
  /// Throws std::invalid_argument naming what was looked for when there is no such file, for
  /// another split (SQuAD publishes no test answers), and when the validation file is the
  /// training file (evaluation never runs on the data the model trains on).
  static std::filesystem::path split_file(const std::filesystem::path& path, const std::string& split,
                                          const std::optional<std::filesystem::path>& dev = std::nullopt);

  /// Reads and tokenizes `file` (TextFormatError for malformed input; std::invalid_argument when
  /// the window options leave no room: max_length - 3 - max_first_length must exceed stride).
  SquadDataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer, const WindowOptions& windows,
               std::string name = {});

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return static_cast<std::int64_t>(features_.size()); }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

  const QaFeature& feature(std::int64_t index) const { return features_.at(static_cast<std::size_t>(index)); }
  std::size_t questions() const { return question_starts_.size() - 1; }
  std::size_t paragraphs() const { return paragraph_starts_.size() - 1; }
  /// Questions whose answer covers no piece (their windows all target [CLS]).
  std::size_t answers_without_pieces() const { return answers_without_pieces_; }
  /// Questions with more pieces than max_first_length (cut).
  std::size_t truncated_questions() const { return truncated_questions_; }
  /// Id of the question a sample belongs to.
  const std::string& question_id(std::int64_t index) const { return question_ids_.at(feature(index).question); }
  /// Whether the file is SQuAD v2.0: its "version" is 2.x ("v2.0", as dev-v2.0.json has it) or a
  /// question is marked is_impossible. Its unanswerable questions have no gold answers, their
  /// windows target [CLS] (position 0: the null answer) and evaluation may predict no answer.
  bool version_2() const { return version_2_; }
  /// The reference answers of question `question` (index into the file's questions, as
  /// QaFeature::question): what evaluation compares a predicted span with; none for a v2.0
  /// question marked is_impossible.
  const std::vector<std::string>& gold_answers(std::size_t question) const { return gold_answers_.at(question); }
  /// Sample positions [first, last] of the context pieces of sample `index` (after [CLS] question
  /// [SEP]): the only positions an answer span may start or end at.
  std::pair<std::int64_t, std::int64_t> context_positions(std::int64_t index) const;
  /// The text of the paragraph's context that positions [start, end] of sample `index` cover:
  /// from where the start position's piece begins to where the end position's piece ends, in the
  /// original context (accents, case and spacing as written). Throws std::out_of_range when a
  /// position is not one of context_positions(index) or end < start.
  std::string span_text(std::int64_t index, std::int64_t start, std::int64_t end) const;

 private:
  DatasetInfo info_;
  WindowOptions windows_;
  std::int64_t cls_id_, sep_id_, pad_id_;
  bool version_2_ = false;
  std::size_t answers_without_pieces_ = 0;
  std::size_t truncated_questions_ = 0;
  // Paragraph and question pieces back to back; paragraph p is [paragraph_starts_[p], ...[p + 1]).
  std::vector<std::int32_t> context_ids_;
  /// Byte span of each context piece in its paragraph's UTF-8 context (parallel to context_ids_).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> context_piece_bytes_;
  std::vector<std::size_t> paragraph_starts_;
  std::vector<std::string> contexts_;
  std::vector<std::vector<std::string>> gold_answers_;
  std::vector<std::int32_t> question_ids_pieces_;
  std::vector<std::size_t> question_starts_;
  std::vector<std::size_t> question_paragraph_;
  std::vector<std::string> question_ids_;
  std::vector<QaFeature> features_;
};

}  // namespace jetchar::loaders::text
