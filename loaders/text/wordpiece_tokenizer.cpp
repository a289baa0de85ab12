#include "loaders/text/wordpiece_tokenizer.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "loaders/text/utf8.h"

namespace jetchar::loaders::text {
namespace {

BasicTokenizerOptions basic_options_for(const Vocab& vocab, const WordPieceOptions& options) {
  BasicTokenizerOptions basic;
  basic.lower_case = options.lower_case.value_or(!vocab.has_upper_case());
  basic.strip_accents = options.strip_accents.value_or(basic.lower_case);
  basic.split_cjk = options.split_cjk;
  return basic;
}

void pad_to(Encoding& encoding, std::size_t max_length, std::int64_t pad_id) {
  encoding.length = encoding.input_ids.size();
  if (encoding.input_ids.size() >= max_length) return;
  const std::size_t n = max_length - encoding.input_ids.size();
  encoding.input_ids.insert(encoding.input_ids.end(), n, pad_id);
  encoding.token_type_ids.insert(encoding.token_type_ids.end(), n, 0);
  encoding.attention_mask.insert(encoding.attention_mask.end(), n, 0);
  encoding.sequence_ids.insert(encoding.sequence_ids.end(), n, -1);
  encoding.offsets.insert(encoding.offsets.end(), n, CharSpan{});
  encoding.word_ids.insert(encoding.word_ids.end(), n, -1);
}

void push(Encoding& encoding, std::int64_t id, std::int64_t type, std::int8_t sequence, CharSpan span,
          std::int64_t word = -1) {
  encoding.input_ids.push_back(id);
  encoding.token_type_ids.push_back(type);
  encoding.attention_mask.push_back(1);
  encoding.sequence_ids.push_back(sequence);
  encoding.offsets.push_back(span);
  encoding.word_ids.push_back(word);
}

void require_length(std::size_t max_length, std::size_t minimum, std::string_view what) {
  if (max_length < minimum) {
    throw std::invalid_argument(
        fmt::format("max_length {} is too small for {}: it needs at least {} "
                    "positions for the special tokens",
                    max_length, what, minimum));
  }
}

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> window_spans(std::size_t length, std::size_t capacity,
                                                              std::size_t stride) {
  if (capacity == 0 || stride >= capacity) {
    throw std::invalid_argument(
        fmt::format("window stride {} must be smaller than the {} tokens a window holds of the second sequence "
                    "(max_length minus the first sequence and 3 special tokens)",
                    stride, capacity));
  }
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(length, start + capacity);
    spans.emplace_back(start, end);
    if (end == length) break;
    start = end - stride;
  }
  return spans;
}

WordPieceTokenizer::WordPieceTokenizer(Vocab vocab, WordPieceOptions options)
    : vocab_(std::move(vocab)),
      basic_(basic_options_for(vocab_, options)),
      max_input_chars_per_word_(options.max_input_chars_per_word) {}

WordPieceTokenizer WordPieceTokenizer::from_file(const std::filesystem::path& vocab_txt, WordPieceOptions options) {
  return WordPieceTokenizer(Vocab::read(vocab_txt), options);
}

void WordPieceTokenizer::append_pieces(const BasicToken& word, std::vector<WordPiece>& out) const {
  const std::size_t n = word.text.size();
  if (n == 0) return;
  const CharSpan whole{word.begin(), word.end()};
  if (n > max_input_chars_per_word_) {
    out.push_back({vocab_.unk_id(), whole});
    return;
  }
  // UTF-8 of the word with the byte offset of each code point, so candidates are substrings.
  std::string utf8;
  std::vector<std::size_t> byte_at(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    byte_at[i] = utf8.size();
    append_utf8(word.text[i], utf8);
  }
  byte_at[n] = utf8.size();

  const std::size_t first_piece = out.size();
  std::string candidate;
  std::size_t start = 0;
  while (start < n) {
    std::size_t end = std::min(n, start + vocab_.max_piece_code_points());
    std::optional<std::int64_t> id;
    for (; end > start; --end) {
      candidate.assign(start > 0 ? "##" : "");
      candidate.append(utf8, byte_at[start], byte_at[end] - byte_at[start]);
      if ((id = vocab_.find(candidate))) break;
    }
    if (!id) {
      // No piece starts here: BERT gives up on the whole word, not just the rest.
      out.resize(first_piece);
      out.push_back({vocab_.unk_id(), whole});
      return;
    }
    out.push_back({*id, CharSpan{word.source_index[start], word.source_index[end - 1] + 1}});
    start = end;
  }
}

std::vector<WordPiece> WordPieceTokenizer::tokenize(std::u32string_view text) const {
  std::vector<WordPiece> pieces;
  for (const BasicToken& word : basic_.tokenize(text)) append_pieces(word, pieces);
  return pieces;
}

std::vector<WordPiece> WordPieceTokenizer::tokenize(std::string_view text, std::string_view source) const {
  return tokenize(decode_utf8(text, source).code_points);
}

std::vector<std::string> WordPieceTokenizer::tokenize_to_strings(std::string_view text, std::string_view source) const {
  std::vector<std::string> strings;
  for (const WordPiece& piece : tokenize(text, source)) strings.push_back(vocab_.token(piece.id));
  return strings;
}

Encoding WordPieceTokenizer::assemble(std::span<const WordPiece> first, std::span<const WordPiece> second,
                                      bool has_second, std::size_t max_length, bool pad) const {
  const std::size_t needed = first.size() + 2 + (has_second ? second.size() + 1 : 0);
  if (needed > max_length) {
    throw std::invalid_argument(fmt::format("{} positions do not fit in max_length {}", needed, max_length));
  }
  Encoding encoding;
  const std::size_t reserve = pad ? max_length : needed;
  encoding.input_ids.reserve(reserve);
  encoding.token_type_ids.reserve(reserve);
  encoding.attention_mask.reserve(reserve);
  encoding.sequence_ids.reserve(reserve);
  encoding.offsets.reserve(reserve);
  encoding.word_ids.reserve(reserve);
  push(encoding, vocab_.cls_id(), 0, -1, {});
  for (const WordPiece& piece : first) push(encoding, piece.id, 0, 0, piece.span);
  push(encoding, vocab_.sep_id(), 0, -1, {});
  if (has_second) {
    for (const WordPiece& piece : second) push(encoding, piece.id, 1, 1, piece.span);
    push(encoding, vocab_.sep_id(), 1, -1, {});
  }
  encoding.length = encoding.input_ids.size();
  if (pad) pad_to(encoding, max_length, vocab_.pad_id());
  return encoding;
}

Encoding WordPieceTokenizer::encode(std::string_view text, std::size_t max_length, bool pad,
                                    std::string_view source) const {
  require_length(max_length, 2, "one sequence");
  std::vector<WordPiece> pieces = tokenize(text, source);
  const bool truncated = pieces.size() > max_length - 2;
  if (truncated) pieces.resize(max_length - 2);
  Encoding encoding = assemble(pieces, {}, false, max_length, pad);
  encoding.truncated = truncated;
  return encoding;
}

Encoding WordPieceTokenizer::encode_pair(std::string_view first, std::string_view second, std::size_t max_length,
                                         bool pad, std::string_view source) const {
  require_length(max_length, 3, "a pair of sequences");
  std::vector<WordPiece> a = tokenize(first, source);
  std::vector<WordPiece> b = tokenize(second, source);
  const std::size_t room = max_length - 3;
  const bool truncated = a.size() + b.size() > room;
  // Longest first: a tie takes from the second sequence, as HF does.
  while (a.size() + b.size() > room) {
    if (a.size() > b.size()) {
      a.pop_back();
    } else {
      b.pop_back();
    }
  }
  Encoding encoding = assemble(a, b, true, max_length, pad);
  encoding.truncated = truncated;
  return encoding;
}

Encoding WordPieceTokenizer::encode_words(std::span<const std::string> words, std::size_t max_length, bool pad,
                                          std::string_view source) const {
  require_length(max_length, 2, "one sequence");
  std::vector<WordPiece> pieces;
  std::vector<std::int64_t> word_of_piece;
  for (std::size_t w = 0; w < words.size(); ++w) {
    const std::size_t before = pieces.size();
    for (const BasicToken& token : basic_.tokenize(decode_utf8(words[w], source).code_points)) {
      append_pieces(token, pieces);
    }
    word_of_piece.insert(word_of_piece.end(), pieces.size() - before, static_cast<std::int64_t>(w));
  }
  const bool truncated = pieces.size() > max_length - 2;
  if (truncated) {
    pieces.resize(max_length - 2);
    word_of_piece.resize(max_length - 2);
  }
  Encoding encoding = assemble(pieces, {}, false, max_length, pad);
  std::copy(word_of_piece.begin(), word_of_piece.end(), encoding.word_ids.begin() + 1);
  encoding.truncated = truncated;
  return encoding;
}

std::vector<Encoding> WordPieceTokenizer::encode_pair_windows(std::string_view first, std::string_view second,
                                                              const WindowOptions& options,
                                                              std::string_view source) const {
  require_length(options.max_length, 3, "a pair of sequences");
  std::vector<WordPiece> a = tokenize(first, source);
  const bool first_truncated = a.size() > options.max_first_length;
  if (first_truncated) a.resize(options.max_first_length);
  const std::vector<WordPiece> b = tokenize(second, source);
  const std::size_t capacity = options.max_length >= a.size() + 3 ? options.max_length - a.size() - 3 : 0;
  std::vector<Encoding> windows;
  const auto spans = window_spans(b.size(), capacity, options.stride);
  for (const auto& [begin, end] : spans) {
    Encoding encoding = assemble(a, std::span(b).subspan(begin, end - begin), true, options.max_length, options.pad);
    encoding.truncated = first_truncated || spans.size() > 1;
    windows.push_back(std::move(encoding));
  }
  return windows;
}

}  // namespace jetchar::loaders::text
