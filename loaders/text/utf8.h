// UTF-8 decoding with byte offsets: text formats give positions in code points (SQuAD's
// answer_start) while files are bytes, so every decoded text keeps both.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::loaders::text {

/// A text as code points, with the byte offset at which each one starts in the UTF-8 input.
struct DecodedText {
  std::u32string code_points;
  /// byte_offsets[i] is where code_points[i] starts; one extra entry holds the input's size.
  std::vector<std::size_t> byte_offsets;
};

/// Byte offset of the first ill-formed UTF-8 sequence (overlong forms, surrogates, truncated
/// sequences and code points above U+10FFFF are ill-formed), or nullopt when `text` is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view text);

/// Decodes `text`; throws TextFormatError naming `source` and the byte offset of the first
/// ill-formed sequence.
DecodedText decode_utf8(std::string_view text, std::string_view source);

/// Throws TextFormatError naming `source` and the byte offset when `text` is not valid UTF-8.
void check_utf8(std::string_view text, std::string_view source);

/// Number of code points in valid UTF-8 `text` (call check_utf8 first).
std::size_t count_code_points(std::string_view text);

/// Appends `code_point` to `out` in UTF-8.
void append_utf8(char32_t code_point, std::string& out);

/// `code_points` in UTF-8.
std::string encode_utf8(std::u32string_view code_points);

}  // namespace jetchar::loaders::text
