// A small RFC 4180 reader (quoted fields, doubled quotes, CRLF) that keeps line numbers so errors
// can name file:line:column. Blank lines and lines starting with '#' are skipped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace jetchar::analysis {

struct CsvRow {
  std::size_t line = 0;  ///< 1-based line where the row starts
  std::vector<std::string> fields;
};

struct CsvTable {
  std::filesystem::path file;
  std::vector<std::string> header;  ///< trimmed, lower-case column names
  std::vector<CsvRow> rows;

  /// Index of `column` in the header, or -1.
  int column(const std::string& name) const;
};

/// Parses `text` (the content of `file`, named in errors). Throws InputError on an unterminated
/// quote, a duplicate or empty column name, or a row whose field count differs from the header.
CsvTable parse_csv(const std::string& text, const std::filesystem::path& file);
/// Reads and parses `file`; throws InputError when it cannot be read.
CsvTable read_csv(const std::filesystem::path& file);

/// The most an input file (an export, a modes file, a power trace) may hold: 256 MiB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;
/// Reads a whole file; throws InputError naming it when it cannot be read, and when it is larger
/// than kMaxInputFileBytes (an endless device such as /dev/zero too), naming the limit.
std::string read_text_file(const std::filesystem::path& file);

}  // namespace jetchar::analysis
