#include "sysfs/unique_fd.h"

#include <unistd.h>

#include <cerrno>

namespace jetchar::sysfs {

UniqueFd::~UniqueFd() { close(); }

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int UniqueFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) noexcept {
  close();
  fd_ = fd < 0 ? -1 : fd;
}

int UniqueFd::close() noexcept {
  if (fd_ < 0) return 0;
  const int fd = release();
  return ::close(fd) == 0 ? 0 : errno;
}

}  // namespace jetchar::sysfs
