#include "sysfs/whole_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "sysfs/error.h"
#include "sysfs/output_file.h"
#include "sysfs/unique_fd.h"

namespace jetchar::sysfs {

std::string read_to_end(int fd, std::string_view name) {
  std::string content;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(std::string(name), "read", errno);
    }
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string read_whole_file(const std::filesystem::path& file) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(file.string(), "read", errno);
  return read_to_end(fd.get(), file.string());
}

std::string read_file_at_most(const std::filesystem::path& file, std::size_t max_bytes, std::string_view what) {
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw IoError(file.string(), "read", errno);
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(file.string(), "read", errno);
    }
    if (n == 0) return content;
    if (content.size() + static_cast<std::size_t>(n) > max_bytes) {
      throw FormatError(file.string(), fmt::format("more than {} bytes", max_bytes),
                        fmt::format("{} of at most {} MiB", what, max_bytes >> 20));
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
}

void replace_file(const std::filesystem::path& file, std::string_view content) { write_output_file(file, content); }

}  // namespace jetchar::sysfs
