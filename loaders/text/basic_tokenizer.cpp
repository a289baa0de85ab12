#include "loaders/text/basic_tokenizer.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <array>

namespace jetchar::loaders::text {
namespace {

bool is_separator_line_or_paragraph(char32_t c) {
  // U+2028/U+2029 survive BERT's cleanup (they are neither Cc/Cf nor Zs) but Python's str.split()
  // and Rust's char::is_whitespace both split on them, so they end a token.
  return c == 0x2028 || c == 0x2029;
}

const UNormalizer2* nfd() {
  static const UNormalizer2* instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2* n = unorm2_getNFDInstance(&status);
    return U_SUCCESS(status) ? n : nullptr;
  }();
  return instance;
}

// Calls `emit` for each code point of a UTF-16 buffer.
template <typename Emit>
void for_each_code_point(const UChar* s, int32_t length, Emit&& emit) {
  int32_t i = 0;
  while (i < length) {
    UChar32 c = 0;
    U16_NEXT(s, i, length, c);
    emit(static_cast<char32_t>(c));
  }
}

}  // namespace

bool BasicTokenizer::is_whitespace(char32_t c) {
  if (c == U' ' || c == U'\t' || c == U'\n' || c == U'\r') return true;
  return u_charType(static_cast<UChar32>(c)) == U_SPACE_SEPARATOR;
}

bool BasicTokenizer::is_control(char32_t c) {
  // \t \n \r are control characters by category, but BERT counts them as whitespace.
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  const auto category = u_charType(static_cast<UChar32>(c));
  return category == U_CONTROL_CHAR || category == U_FORMAT_CHAR;
}

bool BasicTokenizer::is_punctuation(char32_t c) {
  // BERT treats every non-alphanumeric ASCII character as punctuation ("$", "+", "^" are symbols
  // in Unicode) so that they split like punctuation.
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
    return true;
  }
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_CONNECTOR_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION: return true;
    default: return false;
  }
}

bool BasicTokenizer::is_cjk(char32_t c) {
  // The CJK Unified Ideographs blocks BERT lists; Hiragana, Katakana and Hangul are not in them
  // and are tokenized like any other letters.
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void BasicTokenizer::normalize(char32_t c, std::u32string& out) const {
  if (c < 0x80) {  // ASCII: no accents, and lower-casing is a table lookup.
    out.push_back(options_.lower_case && c >= U'A' && c <= U'Z' ? c + (U'a' - U'A') : c);
    return;
  }
  // Full case mapping can turn one character into several (U+0130 -> "i" U+0307).
  std::array<UChar, 8> lowered{};
  int32_t lowered_length = 0;
  U16_APPEND_UNSAFE(lowered.data(), lowered_length, static_cast<UChar32>(c));
  if (options_.lower_case) {
    std::array<UChar, 8> source = lowered;
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n =
        u_strToLower(lowered.data(), static_cast<int32_t>(lowered.size()), source.data(), lowered_length, "", &status);
    // Case mappings are at most three UTF-16 units long; keep the character unchanged if ICU
    // ever disagrees.
    if (U_SUCCESS(status) && n <= static_cast<int32_t>(lowered.size())) {
      lowered_length = n;
    } else {
      lowered = source;
    }
  }
  if (!options_.strip_accents || nfd() == nullptr) {
    for_each_code_point(lowered.data(), lowered_length, [&](char32_t x) { out.push_back(x); });
    return;
  }
  for_each_code_point(lowered.data(), lowered_length, [&](char32_t x) {
    // Canonical decompositions are at most four code points long (ICU: 31 units is plenty).
    std::array<UChar, 32> decomposition{};
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = unorm2_getDecomposition(nfd(), static_cast<UChar32>(x), decomposition.data(),
                                              static_cast<int32_t>(decomposition.size()), &status);
    auto keep = [&](char32_t y) {
      if (u_charType(static_cast<UChar32>(y)) != U_NON_SPACING_MARK) out.push_back(y);
    };
    if (U_SUCCESS(status) && n >= 0) {
      for_each_code_point(decomposition.data(), n, keep);
    } else {
      keep(x);  // no decomposition
    }
  });
}

std::vector<BasicToken> BasicTokenizer::tokenize(std::u32string_view text) const {
  std::vector<BasicToken> tokens;
  BasicToken word;
  auto end_word = [&] {
    if (!word.text.empty()) {
      tokens.push_back(std::move(word));
      word = BasicToken{};
    }
  };
  auto single = [&](char32_t c, std::uint32_t index) {
    end_word();
    tokens.push_back(BasicToken{std::u32string(1, c), {index}});
  };
  std::u32string normalized;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    const auto index = static_cast<std::uint32_t>(i);
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_whitespace(c) || is_separator_line_or_paragraph(c)) {
      end_word();
      continue;
    }
    if (options_.split_cjk && is_cjk(c)) {
      // Compatibility ideographs (U+F900...) decompose to unified ones under NFD.
      normalized.clear();
      normalize(c, normalized);
      end_word();
      for (const char32_t n : normalized) tokens.push_back(BasicToken{std::u32string(1, n), {index}});
      continue;
    }
    normalized.clear();
    normalize(c, normalized);
    for (const char32_t n : normalized) {
      if (is_punctuation(n)) {
        single(n, index);
      } else {
        word.text.push_back(n);
        word.source_index.push_back(index);
      }
    }
  }
  end_word();
  return tokens;
}

}  // namespace jetchar::loaders::text
