#include "tests/support/small_mount.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace jetchar::testing {

SmallMount::SmallMount(std::size_t size_kib) {
  std::string pattern = (std::filesystem::temp_directory_path() / "jetchar-mount-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory");
  path_ = pattern;
  const std::string options = fmt::format("size={}k,mode=0755", size_kib);
  if (::mount("jetchar-test", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0) {
    mounted_ = true;
  } else {
    why_not_ = fmt::format("mounting a tmpfs on {} failed ({}): needs root", path_.string(), std::strerror(errno));
  }
}

SmallMount::~SmallMount() {
  if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void SmallMount::fill(const std::string& name) const {
  const std::string file = (path_ / name).string();
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + file);
  const std::vector<char> block(4096, 'x');
  // Whole blocks, then single bytes into the last partial one.
  while (::write(fd, block.data(), block.size()) > 0) {
  }
  while (::write(fd, block.data(), 1) > 0) {
  }
  ::close(fd);
}

void SmallMount::set_read_only(bool read_only) const {
  const unsigned long flags = MS_REMOUNT | MS_NOSUID | MS_NODEV | (read_only ? MS_RDONLY : 0);
  if (::mount("jetchar-test", path_.c_str(), "tmpfs", flags, nullptr) != 0)
    throw std::runtime_error(fmt::format("remounting {} failed: {}", path_.string(), std::strerror(errno)));
}

}  // namespace jetchar::testing
