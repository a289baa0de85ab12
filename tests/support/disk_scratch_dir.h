// A scratch directory on a disk-backed file system where possible, for page-cache tests: /tmp is
// tmpfs on many machines, and tmpfs pages cannot be evicted (they are the only copy of the data).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace jetchar::testing {

class DiskScratchDir {
 public:
  DiskScratchDir();
  ~DiskScratchDir();
  DiskScratchDir(const DiskScratchDir&) = delete;
  DiskScratchDir& operator=(const DiskScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// True when no disk-backed place was writable and the directory landed on tmpfs.
  bool on_tmpfs() const;
  /// A file of `size_bytes` under the directory, synced to disk (so eviction can drop its pages).
  std::filesystem::path write(const std::string& name, std::size_t size_bytes) const;

 private:
  std::filesystem::path path_;
};

/// Reads `file` to the end (bringing its pages into the page cache).
void read_all(const std::filesystem::path& file);

}  // namespace jetchar::testing
