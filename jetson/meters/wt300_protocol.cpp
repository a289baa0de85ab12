#include "jetson/meters/wt300_protocol.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace jetchar::jetson::meters {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::optional<std::optional<double>> parse_wt300_number(std::string_view text) {
  text = trim(text);
  std::string_view unsigned_text = text;
  if (!unsigned_text.empty() && (unsigned_text.front() == '+' || unsigned_text.front() == '-')) {
    unsigned_text.remove_prefix(1);
  }
  const std::string word = upper(unsigned_text);
  if (word == "NAN" || word == "INF") return std::optional<double>();
  if (text.empty()) return std::nullopt;
  double value = 0.0;
  const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  // The FLOAT format's error codes, as ASCII numbers.
  if (std::fabs(value) >= 9.8e37) return std::optional<double>();
  return std::optional<double>(value);
}

std::optional<std::vector<std::optional<double>>> parse_wt300_values(std::string_view line, std::size_t items) {
  std::vector<std::optional<double>> values;
  line = trim(line);
  if (line.empty()) return std::nullopt;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    const auto number =
        parse_wt300_number(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (!number) return std::nullopt;
    values.push_back(*number);
    if (values.size() > items) return std::nullopt;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (values.size() != items) return std::nullopt;
  return values;
}

std::string format_wt300_values(std::span<const std::optional<double>> values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += values[i] ? fmt::format("{:+.4E}", *values[i]) : std::string("NAN");
  }
  return out;
}

std::optional<ScpiCommand> parse_scpi_command(std::string_view line) {
  line = trim(line);
  if (line.empty()) return std::nullopt;
  ScpiCommand command;
  const std::size_t space = line.find_first_of(" \t");
  std::string_view header = line.substr(0, space);
  if (space != std::string_view::npos) command.arguments = std::string(trim(line.substr(space)));
  if (!header.empty() && header.back() == '?') {
    command.query = true;
    header.remove_suffix(1);
  }
  if (!header.empty() && header.front() == '*') {
    command.common = true;
    command.mnemonics.push_back(upper(header.substr(1)));
    return command.mnemonics.back().empty() ? std::nullopt : std::optional<ScpiCommand>(command);
  }
  if (!header.empty() && header.front() == ':') header.remove_prefix(1);
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = header.find(':', start);
    const std::string_view part = header.substr(start, colon == std::string_view::npos ? header.npos : colon - start);
    if (part.empty()) return std::nullopt;
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
    }
    command.mnemonics.push_back(upper(part));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return command;
}

bool scpi_mnemonic_matches(std::string_view given, std::string_view long_form, bool allow_suffix) {
  std::string short_form;
  for (char c : long_form) {
    if (std::isupper(static_cast<unsigned char>(c))) short_form.push_back(c);
  }
  std::string word = upper(given);
  if (allow_suffix) {
    while (!word.empty() && std::isdigit(static_cast<unsigned char>(word.back()))) word.pop_back();
  }
  return word == short_form || word == upper(long_form);
}

}  // namespace jetchar::jetson::meters
