#include "sysfs/whole_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <stdexcept>

#include "sysfs/error.h"
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

void replace_file(const std::filesystem::path& file, std::string_view content) {
  const std::filesystem::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, file);
}

}  // namespace jetchar::sysfs
