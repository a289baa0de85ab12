// libFuzzer target for the BERT tokenizer: any byte string is either tokenized into pieces whose
// spans lie inside the text, in order, with ids inside the vocabulary, or rejected with
// TextFormatError (invalid UTF-8). The first byte picks options; with its top bit set the rest
// is parsed as a vocab.txt instead.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "loaders/text/text_error.h"
#include "loaders/text/utf8.h"
#include "loaders/text/vocab.h"
#include "loaders/text/wordpiece_tokenizer.h"

namespace {

using namespace jetchar::loaders::text;

void check(bool condition) {
  if (!condition) std::abort();
}

const Vocab& vocab() {
  static const Vocab v = Vocab::parse(
      "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nun\n##aff\n##able\na\n##a\nb\n##b\nab\n##ab\ncafe\nnaive\n"
      "東\n京\n.\n,\n!\n?\n##s\ns\ni\n##i\nе\n##е\nß\n##ß\n",
      "fuzz-vocab.txt");
  return v;
}

void check_encoding(const Encoding& e, std::size_t max_length, bool padded) {
  check(e.length <= max_length);
  check(!padded || e.input_ids.size() == max_length);
  check(e.token_type_ids.size() == e.input_ids.size() && e.attention_mask.size() == e.input_ids.size() &&
        e.sequence_ids.size() == e.input_ids.size() && e.offsets.size() == e.input_ids.size() &&
        e.word_ids.size() == e.input_ids.size());
  for (std::size_t i = 0; i < e.input_ids.size(); ++i) {
    check(e.input_ids[i] >= 0 && e.input_ids[i] < vocab().size());
    check((e.attention_mask[i] == 1) == (i < e.length));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode & 0x80) {
    try {
      const Vocab parsed = Vocab::parse(text, "fuzz.txt");
      check(parsed.size() > 0 && parsed.find("[UNK]").has_value());
      const WordPieceTokenizer tokenizer(parsed);
      for (const WordPiece& p : tokenizer.tokenize("Hello, wörld! 東京 unaffable")) check(p.id < parsed.size());
    } catch (const TextFormatError&) {
    }
    return 0;
  }
  WordPieceOptions options;
  options.lower_case = (mode & 1) != 0;
  options.strip_accents = (mode & 2) != 0;
  options.split_cjk = (mode & 4) != 0;
  options.max_input_chars_per_word = (mode & 8) ? 5 : 100;
  const WordPieceTokenizer tokenizer(vocab(), options);
  try {
    const std::size_t code_points = decode_utf8(text, "fuzz").code_points.size();
    const auto pieces = tokenizer.tokenize(text, "fuzz");
    std::uint32_t previous_begin = 0;
    for (const WordPiece& p : pieces) {
      check(p.id >= 0 && p.id < vocab().size());
      check(p.span.begin < p.span.end && p.span.end <= code_points);
      check(p.span.begin >= previous_begin);
      previous_begin = p.span.begin;
    }
    const std::size_t max_length = 3 + (mode >> 4);
    check_encoding(tokenizer.encode(text, max_length, (mode & 16) != 0, "fuzz"), max_length, (mode & 16) != 0);
    const std::string_view half = text.substr(0, text.size() / 2);
    const std::string_view rest = text.substr(text.size() / 2);
    if (!find_invalid_utf8(half) && !find_invalid_utf8(rest)) {
      check_encoding(tokenizer.encode_pair(half, rest, max_length, true, "fuzz"), max_length, true);
      WindowOptions windows;
      windows.max_length = 9 + (mode >> 4);  // >= 4 context tokens per window > stride
      windows.stride = mode & 3;
      windows.max_first_length = 2;
      for (const Encoding& e : tokenizer.encode_pair_windows(half, rest, windows, "fuzz")) {
        check_encoding(e, windows.max_length, true);
      }
    }
  } catch (const TextFormatError&) {
  }
  return 0;
}
