#include "sysfs/proc_text.h"

#include <cctype>
#include <charconv>

namespace jetchar::sysfs {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::vector<std::string_view> split_on_space(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const size_t end = line.find(' ');
    fields.push_back(line.substr(0, end));
    if (end == std::string_view::npos) break;
    line.remove_prefix(end + 1);
  }
  return fields;
}

std::optional<std::uint64_t> parse_u64(std::string_view field) {
  if (field.empty() || !std::isdigit(static_cast<unsigned char>(field.front()))) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return value;
}

std::string excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (const char c : text.substr(0, max_chars)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (text.size() > max_chars) out += "...";
  return out;
}

}  // namespace jetchar::sysfs
