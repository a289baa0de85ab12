// Errors raised by the sysfs layer. Every message names the path, the operation, and (for I/O)
// the errno text, so a failure on a board can be diagnosed from one line.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace jetchar::sysfs {

/// An I/O operation on a kernel (or fixture) path failed.
class IoError : public std::runtime_error {
 public:
  IoError(std::string path, std::string operation, int error_number, std::string value = {});

  const std::string& path() const { return path_; }
  const std::string& operation() const { return operation_; }
  /// errno of the failed call; 0 when the failure is not an errno (e.g. a read-back mismatch).
  int error_number() const { return error_number_; }

 private:
  std::string path_;
  std::string operation_;
  int error_number_;
};

/// A file was read but its content is not in the expected format.
class FormatError : public std::runtime_error {
 public:
  FormatError(std::string path, std::string value, std::string expected);
  /// For multi-line files (procfs tables): names the 1-based line as well ("/proc/stat line 3: ...").
  FormatError(std::string path, std::size_t line, std::string value, std::string expected);

  const std::string& path() const { return path_; }
  /// 1-based line of the offending content; nullopt when the error is not about one line.
  std::optional<std::size_t> line() const { return line_; }

 private:
  std::string path_;
  std::optional<std::size_t> line_;
};

}  // namespace jetchar::sysfs
