#include "analysis/input_error.h"

#include <fmt/format.h>

#include <utility>

namespace jetchar::analysis {
namespace {

std::string describe(const InputLocation& where, const std::string& problem) {
  std::string prefix = where.file.string();
  if (where.line > 0) prefix += fmt::format(":{}", where.line);
  if (where.column) prefix += fmt::format(": column '{}'", *where.column);
  return fmt::format("{}: {}", prefix, problem);
}

}  // namespace

InputError::InputError(InputLocation where, const std::string& problem)
    : std::invalid_argument(describe(where, problem)), where_(std::move(where)) {}

}  // namespace jetchar::analysis
