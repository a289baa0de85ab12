#include "loaders/gld_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sysfs/error.h"

namespace jetchar::loaders {
namespace {

// Splits one CSV line (RFC 4180 quoting within the line; quoted newlines are not used by these files).
bool split_csv_line(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  fields.push_back(std::move(field));
  return !quoted;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && (s[start] == ' ' || s[start] == '\t')) ++start;
  return s.substr(start);
}

}  // namespace

std::vector<GldRecord> parse_gld_csv(std::string_view text, const std::string& name) {
  std::vector<GldRecord> records;
  std::vector<std::string> fields;
  int user_column = -1, image_column = -1, class_column = -1;
  std::size_t columns = 0;
  std::size_t line_number = 0;
  std::size_t start = 0;
  if (text.starts_with("\xEF\xBB\xBF")) start = 3;  // UTF-8 byte order mark
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (!split_csv_line(line, fields))
      throw sysfs::FormatError(name, line_number, std::string(line), "a closing quote");
    for (auto& field : fields) field = trim(std::move(field));
    if (columns == 0) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (fields[i] == "user_id") user_column = static_cast<int>(i);
        if (fields[i] == "image_id") image_column = static_cast<int>(i);
        if (fields[i] == "class") class_column = static_cast<int>(i);
      }
      if (user_column < 0 || image_column < 0 || class_column < 0) {
        throw sysfs::FormatError(name, line_number, std::string(line), "a header naming user_id,image_id,class");
      }
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns) {
      throw sysfs::FormatError(name, line_number, std::string(line), fmt::format("{} comma-separated fields", columns));
    }
    GldRecord record;
    record.user_id = std::move(fields[user_column]);
    record.image_id = std::move(fields[image_column]);
    record.line = line_number;
    const std::string& class_text = fields[class_column];
    const auto [ptr, error] =
        std::from_chars(class_text.data(), class_text.data() + class_text.size(), record.class_id);
    if (error != std::errc() || ptr != class_text.data() + class_text.size() || record.class_id < 0 ||
        record.class_id > 1'000'000) {
      throw sysfs::FormatError(name, line_number, class_text, "a class id, an integer 0..1000000");
    }
    // The id becomes a file name: refuse anything that could leave the image directory.
    if (record.image_id.empty() || record.image_id.find('/') != std::string::npos ||
        record.image_id.find('\0') != std::string::npos || record.image_id == "." || record.image_id == "..") {
      throw sysfs::FormatError(name, line_number, record.image_id, "an image id (a file name without '/')");
    }
    records.push_back(std::move(record));
  }
  if (columns == 0) throw sysfs::FormatError(name, "empty file", "a header user_id,image_id,class and records");
  return records;
}

}  // namespace jetchar::loaders
