// BERT's WordPiece tokenizer over a vocab.txt: basic tokenization (basic_tokenizer.h), then greedy
// longest-match-first pieces with "##" continuations, then the model's input layout
// [CLS] A [SEP] (B [SEP]) with segment ids, truncation, padding, and overlapping windows over a
// long second sequence (SQuAD contexts). Every piece keeps its span in input code points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/text/basic_tokenizer.h"
#include "loaders/text/vocab.h"

namespace jetchar::loaders::text {

struct WordPieceOptions {
  /// nullopt: lower-case unless the vocabulary has upper-case tokens (a cased model's vocab).
  std::optional<bool> lower_case;
  /// nullopt: strip accents exactly when lower-casing (what BERT's uncased models were trained with).
  std::optional<bool> strip_accents;
  bool split_cjk = true;
  /// A longer word becomes one [UNK]. 100 is HF's value; Google's reference code uses 200.
  std::size_t max_input_chars_per_word = 100;
};

/// A span [begin, end) of code points in the text a token came from.
struct CharSpan {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  friend bool operator==(const CharSpan&, const CharSpan&) = default;
};

struct WordPiece {
  std::int64_t id = 0;
  CharSpan span;
};

/// One model input: [CLS] first [SEP] (second [SEP]) [PAD]...
struct Encoding {
  std::vector<std::int64_t> input_ids;
  /// Segment ids: 0 for [CLS], the first sequence and its [SEP]; 1 for the second and its [SEP];
  /// 0 for padding.
  std::vector<std::int64_t> token_type_ids;
  /// 1 for real tokens, 0 for padding.
  std::vector<std::int64_t> attention_mask;
  /// 0 or 1: the sequence a position's token came from; -1 for [CLS], [SEP] and [PAD].
  std::vector<std::int8_t> sequence_ids;
  /// Span of each position's token in its own input text ({0, 0} for specials and padding); for
  /// encode_words, the span inside its word.
  std::vector<CharSpan> offsets;
  /// encode_words only: the index of the word each position came from; -1 elsewhere.
  std::vector<std::int64_t> word_ids;
  /// Positions before padding.
  std::size_t length = 0;
  /// Whether tokens were cut to fit max_length.
  bool truncated = false;
};

struct WindowOptions {
  /// Positions per window, specials included (BERT's SQuAD setting: 384).
  std::size_t max_length = 384;
  /// Tokens of the second sequence shared by consecutive windows (HF's `stride`, the
  /// `--doc_stride` of run_qa.py). Must be smaller than what a window holds of the second sequence.
  std::size_t stride = 128;
  /// The first sequence (the question) is cut to this many tokens (BERT's max_query_length: 64).
  std::size_t max_first_length = 64;
  bool pad = true;
};

/// Where windows over a sequence of `length` tokens start and end: each holds at most `capacity`
/// tokens and shares `stride` tokens with the previous one; the last ends at `length`. One empty
/// window for an empty sequence. Throws std::invalid_argument unless 0 <= stride < capacity.
std::vector<std::pair<std::size_t, std::size_t>> window_spans(std::size_t length, std::size_t capacity,
                                                              std::size_t stride);

class WordPieceTokenizer {
 public:
  explicit WordPieceTokenizer(Vocab vocab, WordPieceOptions options = {});
  /// Reads `vocab_txt` (see Vocab::read).
  static WordPieceTokenizer from_file(const std::filesystem::path& vocab_txt, WordPieceOptions options = {});

  const Vocab& vocab() const { return vocab_; }
  const BasicTokenizerOptions& basic_options() const { return basic_.options(); }
  std::size_t max_input_chars_per_word() const { return max_input_chars_per_word_; }

  /// WordPiece tokens of UTF-8 `text`; throws TextFormatError naming `source` and the byte offset
  /// when it is not valid UTF-8. Spans are in code points of `text`.
  std::vector<WordPiece> tokenize(std::string_view text, std::string_view source = "text") const;
  /// The same for decoded text.
  std::vector<WordPiece> tokenize(std::u32string_view text) const;
  /// The token strings ("un", "##aff", "##able"), for inspection and tests.
  std::vector<std::string> tokenize_to_strings(std::string_view text, std::string_view source = "text") const;

  /// [CLS] text [SEP], cut to `max_length` (>= 2) positions, padded to it when `pad`.
  Encoding encode(std::string_view text, std::size_t max_length, bool pad = true,
                  std::string_view source = "text") const;
  /// [CLS] first [SEP] second [SEP]; when too long, tokens are removed one at a time from the
  /// longer sequence (HF's "longest_first"). `max_length` >= 3.
  Encoding encode_pair(std::string_view first, std::string_view second, std::size_t max_length, bool pad = true,
                       std::string_view source = "text") const;
  /// [CLS] pieces of every word [SEP] for pre-split words (CoNLL); word_ids says which word each
  /// position belongs to. A word that yields no piece (only control characters) has no position.
  Encoding encode_words(std::span<const std::string> words, std::size_t max_length, bool pad = true,
                        std::string_view source = "text") const;
  /// Overlapping windows: [CLS] first [SEP] window of second [SEP], per WindowOptions.
  std::vector<Encoding> encode_pair_windows(std::string_view first, std::string_view second,
                                            const WindowOptions& options, std::string_view source = "text") const;

  /// Lays out already tokenized sequences; `second` is used only when `has_second`. No truncation:
  /// throws std::invalid_argument if they do not fit in `max_length`.
  Encoding assemble(std::span<const WordPiece> first, std::span<const WordPiece> second, bool has_second,
                    std::size_t max_length, bool pad) const;

  /// Appends the pieces of one basic token (all of them, or one [UNK] spanning the word).
  void append_pieces(const BasicToken& word, std::vector<WordPiece>& out) const;

 private:
  Vocab vocab_;
  BasicTokenizer basic_;
  std::size_t max_input_chars_per_word_;
};

}  // namespace jetchar::loaders::text
