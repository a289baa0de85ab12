// The error every analysis input reader throws: names the file, the line and column, the value and
// what is valid. Derives from std::invalid_argument so the CLI maps it to "bad input" (exit 3).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace jetchar::analysis {

struct InputLocation {
  InputLocation() = default;
  InputLocation(std::filesystem::path file_path, std::size_t line_number = 0,
                std::optional<std::string> column_name = std::nullopt)
      : file(std::move(file_path)), line(line_number), column(std::move(column_name)) {}

  std::filesystem::path file;
  std::size_t line = 0;               ///< 1-based; 0 when the error concerns the whole file
  std::optional<std::string> column;  ///< column (CSV header name) or key (JSONL)
};

class InputError : public std::invalid_argument {
 public:
  InputError(InputLocation where, const std::string& problem);
  const InputLocation& where() const { return where_; }

 private:
  InputLocation where_;
};

}  // namespace jetchar::analysis
