#include "loaders/inflated_file_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <list>
#include <mutex>
#include <span>
#include <string>

#include "loaders/idx.h"
#include "sysfs/error.h"
#include "sysfs/unique_fd.h"
#include "sysfs/whole_file.h"

namespace jetchar::loaders {
namespace {

// What tells one version of a file from another: the same name may be a new file (inode), and a
// file written in place changes its size or its times.
struct FileVersion {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t modified_ns = 0, changed_ns = 0;
  bool operator==(const FileVersion&) const = default;
};

constexpr std::int64_t kNs = 1'000'000'000;

FileVersion version_of(const struct stat& st) {
  return {st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * kNs + st.st_mtim.tv_nsec,
          st.st_ctim.tv_sec * kNs + st.st_ctim.tv_nsec};
}

// Whether the file's times are old enough to tell a later write apart: file systems keep them at a
// coarse grain (the kernel's tick; 2 s on FAT, as on many SD cards), so a file written again within
// that grain keeps its times, and one modified in the last seconds is not kept.
bool settled(const FileVersion& version) {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t now_ns = now.tv_sec * kNs + now.tv_nsec;
  return now_ns - std::max(version.modified_ns, version.changed_ns) > kInflatedCacheSettleSeconds * kNs;
}

struct Entry {
  std::filesystem::path path;
  FileVersion version;
  std::shared_ptr<const std::vector<std::uint8_t>> bytes;
};

std::mutex cache_mutex;
std::list<Entry> cache;  // most recently used first
std::size_t cached_bytes = 0;

}  // namespace

std::shared_ptr<const std::vector<std::uint8_t>> inflated_file(const std::filesystem::path& path) {
  const sysfs::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw sysfs::IoError(path.string(), "open", errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw sysfs::IoError(path.string(), "stat", errno);
  // A device or a pipe has no version to key on, and /dev/zero would never end.
  if (!S_ISREG(st.st_mode)) throw sysfs::FormatError(path.string(), "not a regular file", "a gzip-compressed file");
  const FileVersion version = version_of(st);
  {
    const std::lock_guard lock(cache_mutex);
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->path == path && it->version == version) {
        cache.splice(cache.begin(), cache, it);
        return it->bytes;
      }
    }
  }
  // Inflated outside the lock: another thread may inflate the same file meanwhile, and both copies
  // are right.
  const std::string compressed = sysfs::read_to_end(fd.get(), path.string());
  auto bytes = std::make_shared<const std::vector<std::uint8_t>>(
      gunzip(std::span(reinterpret_cast<const std::uint8_t*>(compressed.data()), compressed.size()), path.string()));
  if (bytes->size() > kInflatedCacheBytes || !settled(version)) return bytes;
  const std::lock_guard lock(cache_mutex);
  std::erase_if(cache, [&](const Entry& e) {
    if (e.path != path) return false;
    cached_bytes -= e.bytes->size();
    return true;
  });
  cache.push_front({path, version, bytes});
  cached_bytes += bytes->size();
  while (cached_bytes > kInflatedCacheBytes) {
    cached_bytes -= cache.back().bytes->size();
    cache.pop_back();
  }
  return bytes;
}

}  // namespace jetchar::loaders
