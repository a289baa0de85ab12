// A temporary directory that is removed with everything in it when the object goes away. It is
// in memory (/dev/shm) unless TMPDIR names another place or /dev/shm lacks room, in which case it is
// under TMPDIR or /tmp (temp_dir.cpp says why).
#pragma once

#include <filesystem>
#include <string_view>

namespace jetchar::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Writes `content` to `relative` (parents created) and returns the full path.
  std::filesystem::path write(std::string_view relative, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace jetchar::testing
