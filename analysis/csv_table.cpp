#include "analysis/csv_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/input_error.h"

namespace jetchar::analysis {
namespace {

std::string normalise_name(std::string name) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  name.erase(name.begin(), std::find_if(name.begin(), name.end(), not_space));
  name.erase(std::find_if(name.rbegin(), name.rend(), not_space).base(), name.end());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

}  // namespace

int CsvTable::column(const std::string& name) const {
  auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError({file}, fmt::format("cannot be read: {}", std::strerror(errno)));
  // Read in pieces up to the limit: a device that never ends (/dev/zero) is refused at the limit
  // instead of filling memory.
  std::string content;
  std::string piece(std::size_t{1} << 20, '\0');
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (content.size() + got > kMaxInputFileBytes) {
      throw InputError({file}, fmt::format("is larger than {} MiB: not a results export, modes file or power trace",
                                           kMaxInputFileBytes >> 20));
    }
    content.append(piece.data(), got);
  }
  if (in.bad()) throw InputError({file}, "read failed");
  return content;
}

CsvTable parse_csv(const std::string& text, const std::filesystem::path& file) {
  CsvTable table;
  table.file = file;
  std::size_t pos = 0;
  std::size_t line = 1;
  if (text.starts_with("\xEF\xBB\xBF")) pos = 3;  // UTF-8 byte-order mark from spreadsheet exports

  std::vector<CsvRow> records;
  while (pos < text.size()) {
    // Skip blank and comment lines.
    if (text[pos] == '\n' || text[pos] == '\r' || text[pos] == '#') {
      if (text[pos] == '#') {
        while (pos < text.size() && text[pos] != '\n') ++pos;
      }
      if (pos < text.size() && text[pos] == '\r') ++pos;
      if (pos < text.size() && text[pos] == '\n') {
        ++pos;
        ++line;
      }
      continue;
    }
    CsvRow row;
    row.line = line;
    std::string field;
    bool quoted = false;
    bool field_was_quoted = false;
    std::size_t quote_line = line;
    for (;;) {
      if (pos >= text.size()) {
        if (quoted) throw InputError({file, quote_line}, "a quoted field is never closed");
        row.fields.push_back(std::move(field));
        break;
      }
      char c = text[pos++];
      if (quoted) {
        if (c == '"') {
          if (pos < text.size() && text[pos] == '"') {
            field += '"';
            ++pos;
          } else quoted = false;
        } else {
          if (c == '\n') ++line;
          field += c;
        }
        continue;
      }
      if (c == '"' && !field_was_quoted && field.find_first_not_of(" \t") == std::string::npos) {
        field.clear();
        quoted = field_was_quoted = true;
        quote_line = line;
      } else if (c == ',') {
        row.fields.push_back(std::move(field));
        field.clear();
        field_was_quoted = false;
      } else if (c == '\r' && pos < text.size() && text[pos] == '\n') {
        // CRLF: the '\n' ends the row on the next iteration.
      } else if (c == '\n') {
        ++line;
        row.fields.push_back(std::move(field));
        break;
      } else {
        field += c;
      }
    }
    records.push_back(std::move(row));
  }
  if (records.empty()) throw InputError({file}, "is empty; expected a header line of column names");

  std::set<std::string> seen;
  for (std::size_t i = 0; i < records.front().fields.size(); ++i) {
    std::string name = normalise_name(records.front().fields[i]);
    if (name.empty())
      throw InputError({file, records.front().line}, fmt::format("column {} of the header has no name", i + 1));
    if (!seen.insert(name).second)
      throw InputError({file, records.front().line}, fmt::format("column '{}' appears twice", name));
    table.header.push_back(std::move(name));
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].fields.size() != table.header.size()) {
      throw InputError({file, records[r].line}, fmt::format("{} fields, but the header has {} columns",
                                                            records[r].fields.size(), table.header.size()));
    }
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

CsvTable read_csv(const std::filesystem::path& file) { return parse_csv(read_text_file(file), file); }

}  // namespace jetchar::analysis
