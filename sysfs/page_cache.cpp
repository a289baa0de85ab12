#include "sysfs/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <system_error>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/unique_fd.h"

namespace fs = std::filesystem;

namespace jetchar::sysfs {
namespace {

constexpr const char* kDropCaches = "/proc/sys/vm/drop_caches";
// mincore() needs one byte per page; mapping 1 GiB at a time keeps that vector at 256 KiB for
// 4 KiB pages however large the file, and bounds the address space taken at once.
constexpr std::uint64_t kWindowBytes = std::uint64_t{1} << 30;

// Calls `visit(path, size_bytes, fd)` for each regular file named in `paths` or found below a
// directory in it. Explicitly named symlinks are followed (the user chose them); symlinks met
// while walking a directory are not, so a data set is not counted twice through links.
void for_each_file(const std::vector<fs::path>& paths,
                   const std::function<void(const fs::path&, std::uint64_t, int)>& visit) {
  const auto visit_file = [&](const fs::path& file) {
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd) throw IoError(file.string(), "open", errno);
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0) throw IoError(file.string(), "stat", errno);
    visit(file, static_cast<std::uint64_t>(status.st_size), fd.get());
  };
  for (const auto& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec) throw IoError(path.string(), "stat", ec.value());
    if (fs::is_regular_file(status)) {
      visit_file(fs::canonical(path, ec));
      if (ec) throw IoError(path.string(), "resolve", ec.value());
    } else if (fs::is_directory(status)) {
      std::vector<fs::path> files;
      fs::recursive_directory_iterator it(path, ec);
      for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path());
      }
      if (ec) throw IoError(path.string(), "list directory", ec.value());
      std::sort(files.begin(), files.end());
      for (const auto& file : files) visit_file(file);
    } else {
      throw IoError(path.string(), "use as a file or directory (it is neither)", EINVAL);
    }
  }
}

}  // namespace

void drop_page_cache(const Root& root) {
  // Dirty pages are not dropped; write them back first so the whole cache goes.
  ::sync();
  try {
    write_string(root, kDropCaches, "3");
  } catch (const IoError& error) {
    const int number = error.error_number();
    if (number == EACCES || number == EPERM || number == EROFS) {
      throw IoError(kDropCaches, "write (dropping the page cache needs root; use evict_files() for single files)",
                    number, "3");
    }
    throw;
  }
}

EvictionSummary evict_files(const std::vector<fs::path>& paths) {
  EvictionSummary summary;
  for_each_file(paths, [&](const fs::path& file, std::uint64_t size_bytes, int fd) {
    if (::fdatasync(fd) != 0 && errno != EINVAL) throw IoError(file.string(), "fdatasync", errno);
    if (const int error = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); error != 0) {
      throw IoError(file.string(), "posix_fadvise(DONTNEED)", error);
    }
    ++summary.files;
    summary.bytes += size_bytes;
  });
  return summary;
}

std::optional<double> Residency::resident_fraction() const {
  if (total_pages == 0) return std::nullopt;
  return static_cast<double>(resident_pages) / static_cast<double>(total_pages);
}

Residency page_residency(const std::vector<fs::path>& paths) {
  Residency residency;
  const auto page_bytes = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  residency.page_size_bytes = page_bytes;
  std::vector<unsigned char> pages;
  for_each_file(paths, [&](const fs::path& file, std::uint64_t size_bytes, int fd) {
    ++residency.files;
    residency.total_bytes += size_bytes;
    residency.total_pages += (size_bytes + page_bytes - 1) / page_bytes;
    // mmap of length 0 is EINVAL: an empty file simply has no pages.
    for (std::uint64_t offset = 0; offset < size_bytes; offset += kWindowBytes) {
      const std::uint64_t length = std::min(kWindowBytes, size_bytes - offset);
      void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
      if (map == MAP_FAILED) throw IoError(file.string(), "mmap", errno);
      pages.assign((length + page_bytes - 1) / page_bytes, 0);
      const int result = ::mincore(map, length, pages.data());
      const int error = errno;
      ::munmap(map, length);
      if (result != 0) throw IoError(file.string(), "mincore", error);
      for (size_t page = 0; page < pages.size(); ++page) {
        if ((pages[page] & 1) == 0) continue;
        ++residency.resident_pages;
        const std::uint64_t start = offset + page * page_bytes;
        residency.resident_bytes += std::min(page_bytes, size_bytes - start);
      }
    }
  });
  return residency;
}

}  // namespace jetchar::sysfs
