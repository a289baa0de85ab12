// A read-only file opened once and read with pread from any thread (no shared file offset).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "sysfs/unique_fd.h"

namespace jetchar::loaders {

class FileReader {
 public:
  /// Opens `path`; throws sysfs::IoError naming it.
  explicit FileReader(const std::filesystem::path& path);
  FileReader(FileReader&& other) noexcept = default;
  FileReader& operator=(FileReader&&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::uint64_t size() const { return size_; }
  /// Reads exactly out.size() bytes at `offset`; false (errno kept) on a short read or error.
  bool read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;

 private:
  std::filesystem::path path_;
  sysfs::UniqueFd fd_;
  std::uint64_t size_ = 0;
};

/// Reads a whole file into `out` (resized; capacity reused). On failure returns a message naming the file.
bool read_whole_file(const std::filesystem::path& path, std::vector<std::uint8_t>& out, std::string& error);

}  // namespace jetchar::loaders
