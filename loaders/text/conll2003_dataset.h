// CoNLL-2003 as a token-classification data set for BERT: every sentence is WordPiece-tokenized
// once when the data set opens; a sample is [CLS] pieces [SEP] [PAD]... of max_length int64 ids
// with the word's NER label id on its first piece and -100 (ignored by the loss) on the other
// pieces, the specials and the padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loaders/dataset.h"
#include "loaders/text/conll2003.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace jetchar::loaders::text {

/// The label of positions the loss ignores (PyTorch's CrossEntropyLoss ignore_index).
inline constexpr std::int64_t kIgnoreLabel = -100;

/// Per-position labels for pre-split words: label of word w on the first piece of w, kIgnoreLabel
/// elsewhere. `word_ids` as in Encoding (-1 = special/padding); `word_labels` indexed by word.
std::vector<std::int64_t> first_piece_labels(std::span<const std::int64_t> word_ids,
                                             std::span<const std::int8_t> word_labels);

class Conll2003Dataset : public Dataset {
 public:
  /// Reads `file` and tokenizes its sentences with `tokenizer` into samples of `max_length`
  /// positions (sentences with more pieces are cut; truncated_sentences() counts them). Throws
  /// TextFormatError for a malformed file, std::invalid_argument for max_length < 2.
  Conll2003Dataset(const std::filesystem::path& file, const WordPieceTokenizer& tokenizer, std::size_t max_length,
                   std::optional<TagScheme> scheme = std::nullopt, std::string name = {});

  /// The file of `split` in `dir`: train -> train.txt or eng.train; validation (or valid, dev,
  /// testa) -> valid.txt or eng.testa; test (or testb) -> test.txt or eng.testb. Throws
  /// std::invalid_argument naming what was looked for.
  static std::filesystem::path split_file(const std::filesystem::path& dir, const std::string& split);

  const DatasetInfo& info() const override { return info_; }
  std::int64_t size() const override { return static_cast<std::int64_t>(starts_.size()) - 1; }
  SampleStatus get(std::int64_t index, Rng& rng, const SampleOut& out) const override;

  std::size_t max_length() const { return max_length_; }
  TagScheme scheme() const { return scheme_; }
  std::size_t documents() const { return documents_; }
  /// Sentences that had more pieces than max_length - 2.
  std::size_t truncated_sentences() const { return truncated_sentences_; }
  /// Words that produced no piece (only control characters) and so carry no label.
  std::size_t words_without_pieces() const { return words_without_pieces_; }

 private:
  DatasetInfo info_;
  std::size_t max_length_;
  std::int64_t cls_id_, sep_id_, pad_id_;
  TagScheme scheme_ = TagScheme::kIob2;
  std::size_t documents_ = 0;
  std::size_t truncated_sentences_ = 0;
  std::size_t words_without_pieces_ = 0;
  // Pieces of all sentences back to back (ids < 2^31: BERT vocabularies have ~30k tokens), with
  // their labels (-100 or a label id); sentence i is [starts_[i], starts_[i + 1]).
  std::vector<std::int32_t> ids_;
  std::vector<std::int8_t> labels_;
  std::vector<std::size_t> starts_;
};

}  // namespace jetchar::loaders::text
