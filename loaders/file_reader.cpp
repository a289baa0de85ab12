#include "loaders/file_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "sysfs/error.h"

namespace jetchar::loaders {

FileReader::FileReader(const std::filesystem::path& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (!fd_) throw sysfs::IoError(path.string(), "open", errno);
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) throw sysfs::IoError(path.string(), "stat", errno);
  if (!S_ISREG(st.st_mode)) throw sysfs::IoError(path.string(), "read (not a regular file)", EINVAL);
  size_ = static_cast<std::uint64_t>(st.st_size);
}

bool FileReader::read_at(std::uint64_t offset, std::span<std::uint8_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_.get(), out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool read_whole_file(const std::filesystem::path& path, std::vector<std::uint8_t>& out, std::string& error) {
  const sysfs::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    error = fmt::format("cannot open {}: {}", path.string(), std::strerror(errno));
    return false;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    error = fmt::format("cannot stat {}: {}", path.string(), std::strerror(errno));
    return false;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd.get(), out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = fmt::format("cannot read {} at offset {}: {}", path.string(), done,
                          n == 0 ? "unexpected end of file" : std::strerror(errno));
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace jetchar::loaders
