#include "loaders/text/utf8.h"

#include <unicode/utf8.h>

#include <cstdint>

#include <fmt/format.h>

#include "loaders/text/text_error.h"

namespace jetchar::loaders::text {
namespace {

const std::uint8_t* bytes(std::string_view text) { return reinterpret_cast<const std::uint8_t*>(text.data()); }

[[noreturn]] void throw_invalid(std::string_view text, std::size_t offset, std::string_view source) {
  // Show the offending bytes: that is what a user needs to find them with a hex viewer.
  std::string shown;
  for (std::size_t i = offset; i < text.size() && i < offset + 4; ++i) {
    shown += fmt::format("{}{:02X}", shown.empty() ? "" : " ", static_cast<unsigned>(bytes(text)[i]));
  }
  throw TextFormatError(
      fmt::format("{}: invalid UTF-8 at byte offset {} (bytes {}); text files must be UTF-8", source, offset, shown));
}

}  // namespace

std::optional<std::size_t> find_invalid_utf8(std::string_view text) {
  const std::uint8_t* s = bytes(text);
  const std::size_t length = text.size();
  std::size_t i = 0;
  while (i < length) {
    const std::size_t start = i;
    UChar32 c = 0;
    U8_NEXT(s, i, length, c);
    if (c < 0) return start;
  }
  return std::nullopt;
}

DecodedText decode_utf8(std::string_view text, std::string_view source) {
  DecodedText decoded;
  decoded.code_points.reserve(text.size());
  decoded.byte_offsets.reserve(text.size() + 1);
  const std::uint8_t* s = bytes(text);
  const std::size_t length = text.size();
  std::size_t i = 0;
  while (i < length) {
    const std::size_t start = i;
    UChar32 c = 0;
    U8_NEXT(s, i, length, c);
    if (c < 0) throw_invalid(text, start, source);
    decoded.code_points.push_back(static_cast<char32_t>(c));
    decoded.byte_offsets.push_back(start);
  }
  decoded.byte_offsets.push_back(length);
  return decoded;
}

void check_utf8(std::string_view text, std::string_view source) {
  if (const auto offset = find_invalid_utf8(text)) throw_invalid(text, *offset, source);
}

std::size_t count_code_points(std::string_view text) {
  std::size_t count = 0;
  // Every code point has exactly one byte that is not a continuation byte (10xxxxxx).
  for (const char byte : text) count += (static_cast<std::uint8_t>(byte) & 0xC0) != 0x80;
  return count;
}

void append_utf8(char32_t code_point, std::string& out) {
  std::uint8_t buffer[U8_MAX_LENGTH];
  std::size_t n = 0;
  U8_APPEND_UNSAFE(buffer, n, code_point);
  out.append(reinterpret_cast<const char*>(buffer), n);
}

std::string encode_utf8(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (const char32_t c : code_points) append_utf8(c, out);
  return out;
}

}  // namespace jetchar::loaders::text
