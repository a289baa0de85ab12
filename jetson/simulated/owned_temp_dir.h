// A temporary folder that a simulated board or an expanded fixture lives in, owned by the process
// that made it: beside `<prefix>-XXXXXX` lies `<prefix>-XXXXXX.jetchar-owner`, which the owner
// holds flock(2)ed for as long as the folder is in use. The folder is removed when its owner lets
// it go; when the owner is killed (SIGKILL, a crash) the kernel drops the lock, and the next such
// folder made under the same parent removes the orphan, whatever its prefix (a board tree is about
// 1 MB, and a user who kills runs would otherwise fill the temporary directory). A folder without
// an owner file (made by an older jetchar, or by a process killed between mkdtemp and its lock) is
// left alone.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

#include "sysfs/unique_fd.h"

namespace jetchar::jetson {

class OwnedTempDir {
 public:
  /// Removes the orphaned folders under the temporary directory (TMPDIR, else /tmp), then makes a
  /// fresh `<prefix>-XXXXXX` there and locks its owner file. Throws sysfs::IoError naming the path.
  explicit OwnedTempDir(std::string_view prefix);
  OwnedTempDir() = default;
  ~OwnedTempDir();
  OwnedTempDir(OwnedTempDir&& other) noexcept;
  OwnedTempDir& operator=(OwnedTempDir&& other) noexcept;
  OwnedTempDir(const OwnedTempDir&) = delete;
  OwnedTempDir& operator=(const OwnedTempDir&) = delete;

  /// The folder; empty for a default-constructed or moved-from one.
  const std::filesystem::path& path() const { return dir_; }

 private:
  void release() noexcept;

  std::filesystem::path dir_;
  sysfs::UniqueFd owner_;
};

/// Removes every folder under `parent` whose owner file no live process holds, and that owner file
/// (a link in the folder's place is not followed); returns how many owner files it removed.
/// Folders without an owner file stay.
std::size_t remove_orphaned_temp_dirs(const std::filesystem::path& parent) noexcept;

}  // namespace jetchar::jetson
