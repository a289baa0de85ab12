#include "sysfs/error.h"

#include <fmt/format.h>

#include <cstring>

#include "sysfs/errno_name.h"

namespace jetchar::sysfs {
namespace {

std::string io_message(const std::string& path, const std::string& operation, int error_number,
                       const std::string& value) {
  std::string message = fmt::format("cannot {} {}", operation, path);
  if (!value.empty()) message += fmt::format(" (value '{}')", value);
  if (error_number != 0) message += fmt::format(": {} ({})", std::strerror(error_number), errno_name(error_number));
  return message;
}

}  // namespace

IoError::IoError(std::string path, std::string operation, int error_number, std::string value)
    : std::runtime_error(io_message(path, operation, error_number, value)),
      path_(std::move(path)),
      operation_(std::move(operation)),
      error_number_(error_number) {}

FormatError::FormatError(std::string path, std::string value, std::string expected)
    : std::runtime_error(fmt::format("{}: unexpected content '{}', expected {}", path, value, expected)),
      path_(std::move(path)) {}

FormatError::FormatError(std::string path, std::size_t line, std::string value, std::string expected)
    : std::runtime_error(fmt::format("{} line {}: unexpected content '{}', expected {}", path, line, value, expected)),
      path_(std::move(path)),
      line_(line) {}

}  // namespace jetchar::sysfs
