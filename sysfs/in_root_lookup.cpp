#include "sysfs/in_root_lookup.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <string>

namespace jetchar::sysfs {
namespace {

// The path the kernel holds for an open descriptor; nullopt for a descriptor without one.
std::optional<std::string> path_of(int fd) {
  std::array<char, PATH_MAX> target;
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
  if (length <= 0 || static_cast<std::size_t>(length) == target.size()) return std::nullopt;
  return std::string(target.data(), static_cast<std::size_t>(length));
}

int open_in_root(int dir, const char* path) {
#ifdef SYS_openat2
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, path, &how, sizeof how));
#else
  (void)dir, (void)path;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

std::unique_ptr<const InRootLookup> InRootLookup::open(const std::filesystem::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return nullptr;
  auto real = path_of(fd.get());
  if (!real || real->empty() || real->front() != '/') return nullptr;
  // A kernel without openat2 (L4T r32's 4.9, QEMU's user mode) says so once, here.
  if (UniqueFd probe(open_in_root(fd.get(), "/")); !probe) return nullptr;
  if (*real == "/") real->clear();
  return std::unique_ptr<const InRootLookup>(new InRootLookup(std::move(fd), std::move(*real)));
}

std::optional<std::string> InRootLookup::canonical(std::string_view path) const {
  const std::string name(path);
  const UniqueFd fd(open_in_root(dir_.get(), name.c_str()));
  if (!fd) return std::nullopt;
  auto real = path_of(fd.get());
  // Inside the directory by construction; anything else (a file deleted meanwhile, whose name
  // gains " (deleted)", still starts with it) is left to the caller's walk.
  if (!real || real->compare(0, real_dir_.size(), real_dir_) != 0) return std::nullopt;
  if (real->size() == real_dir_.size()) return "/";
  if ((*real)[real_dir_.size()] != '/' || real->ends_with(" (deleted)")) return std::nullopt;
  return real->substr(real_dir_.size());
}

}  // namespace jetchar::sysfs
