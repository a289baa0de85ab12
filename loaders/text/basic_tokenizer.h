// BERT's BasicTokenizer (google-research/bert tokenization.py; HF BertNormalizer + BertPreTokenizer):
// text cleanup, CJK ideographs split out, optional lower-casing and accent stripping, and
// punctuation split. Every output character remembers which input code point it came from, so a
// token's span in the original text is known (SQuAD answers are located by it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

struct BasicTokenizerOptions {
  /// Lower-case every character (full Unicode case mapping, one character at a time as HF's fast
  /// tokenizer does, so a final capital sigma becomes σ, not ς).
  bool lower_case = true;
  /// NFD-decompose and drop non-spacing marks (category Mn): "Café" -> "Cafe".
  bool strip_accents = true;
  /// Put every CJK ideograph in a token of its own.
  bool split_cjk = true;
};

/// One token after basic tokenization.
struct BasicToken {
  /// The normalized characters.
  std::u32string text;
  /// For each character of `text`, the index of the input code point it came from.
  std::vector<std::uint32_t> source_index;

  /// The token's span [begin, end) in input code points.
  std::uint32_t begin() const { return source_index.front(); }
  std::uint32_t end() const { return source_index.back() + 1; }
};

class BasicTokenizer {
 public:
  explicit BasicTokenizer(BasicTokenizerOptions options = {}) : options_(options) {}

  /// Tokenizes decoded text (see utf8.h). Never fails: characters it cannot use are dropped.
  std::vector<BasicToken> tokenize(std::u32string_view text) const;

  const BasicTokenizerOptions& options() const { return options_; }

  /// BERT's character classes, exposed for tests and for the WordPiece stage.
  static bool is_whitespace(char32_t c);
  static bool is_control(char32_t c);
  static bool is_punctuation(char32_t c);
  static bool is_cjk(char32_t c);

 private:
  /// Appends the normalized form of `c` (lower-cased, accents stripped as configured).
  void normalize(char32_t c, std::u32string& out) const;

  BasicTokenizerOptions options_;
};

}  // namespace jetchar::loaders::text
