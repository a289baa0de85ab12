// Page-cache control for cold/warm-cache experiments: drop the whole cache before epoch 0 (as
// the study's drop_caches.sh), evict just the data-set files (no root needed), and measure how
// much of a data set is resident (as vmtouch does) before each epoch.
//
// Residency and eviction take real file-system paths, not kernel paths resolved under a Root:
// the files are the user's data set on whatever medium it lives, and the page cache being
// measured is this machine's. A fixture Root would point them at the wrong files. Only the
// drop_caches control file is a kernel interface and goes through Root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::sysfs {

/// sync(2), then writes "3" (page cache + dentries + inodes) to /proc/sys/vm/drop_caches under
/// `root`. Needs root on a real kernel: throws IoError with error_number() EACCES (EPERM, or
/// EROFS for a read-only /proc/sys in a container) and a message saying so otherwise.
void drop_page_cache(const Root& root);

/// Result of evict_files().
struct EvictionSummary {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

/// For every regular file in `paths` (directories recursively, symlinks inside directories not
/// followed): fdatasync(2), because dirty pages cannot be dropped, then
/// posix_fadvise(POSIX_FADV_DONTNEED). The kernel may keep pages that are mapped or locked by
/// some process; tmpfs/ramfs files cannot be evicted at all (their pages are the only copy).
/// Throws IoError naming the file on failure.
EvictionSummary evict_files(const std::vector<std::filesystem::path>& paths);

/// Page-cache residency of a set of files.
struct Residency {
  std::uint64_t files = 0;
  std::uint64_t page_size_bytes = 0;
  /// Pages spanned by the files (a file of n bytes spans ceil(n / page size); an empty file 0).
  std::uint64_t total_pages = 0;
  std::uint64_t resident_pages = 0;
  /// Sum of file sizes.
  std::uint64_t total_bytes = 0;
  /// Bytes of the files in resident pages (a resident partial last page counts its file bytes).
  std::uint64_t resident_bytes = 0;

  /// resident_pages / total_pages; nullopt when there are no pages (only empty files, or none).
  std::optional<double> resident_fraction() const;
};

/// Residency of every regular file in `paths` (directories recursively, symlinks inside
/// directories not followed), by mmap(2) + mincore(2) without touching the pages. Throws
/// IoError naming the file when a path does not exist or cannot be opened or mapped.
Residency page_residency(const std::vector<std::filesystem::path>& paths);

}  // namespace jetchar::sysfs
