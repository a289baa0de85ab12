#include "results/schema/store_connection.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <cctype>

namespace jetchar::results::schema {

std::string file_uri(const std::filesystem::path& file, std::string_view query) {
  std::string uri = "file:";
  for (const unsigned char c : file.string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri.push_back(static_cast<char>(c));
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri + "?" + std::string(query);
}

std::unique_ptr<SQLite::Database> open_without_trace(const std::filesystem::path& file) {
  std::error_code ec;
  const bool writer_present = std::filesystem::exists(file.string() + "-wal", ec);
  return std::make_unique<SQLite::Database>(file_uri(file, writer_present ? "mode=ro" : "mode=ro&immutable=1"),
                                            SQLite::OPEN_READONLY | SQLite::OPEN_URI);
}

}  // namespace jetchar::results::schema
