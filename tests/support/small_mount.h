// A small file system of its own (tmpfs of a few KiB, mounted on a temporary directory), for the
// faults a user's disk brings: a full disk (writes fail with ENOSPC once it is full) and a
// read-only folder (remounted read-only: EROFS, which root cannot override as it overrides a
// folder's mode bits). Mounting needs root (CAP_SYS_ADMIN); where it is refused, available() is
// false and the test skips saying why.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace jetchar::testing {

class SmallMount {
 public:
  explicit SmallMount(std::size_t size_kib = 64);
  ~SmallMount();
  SmallMount(const SmallMount&) = delete;
  SmallMount& operator=(const SmallMount&) = delete;

  bool available() const { return mounted_; }
  /// Why there is no mount (for GTEST_SKIP).
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& path() const { return path_; }

  /// Fills the file system to its last byte with a file named `name`.
  void fill(const std::string& name = "filler") const;
  /// Remounts it read-only (true) or read-write (false).
  void set_read_only(bool read_only) const;

 private:
  std::filesystem::path path_;
  bool mounted_ = false;
  std::string why_not_;
};

}  // namespace jetchar::testing
