// A path resolved by the kernel inside a directory, as if that directory were "/": openat2(2)
// with RESOLVE_IN_ROOT (Linux 5.6) keeps every symlink, absolute ones included, inside it. One
// call where Root::canonical's own walk makes a readlink(2) per component, each of which walks the
// path again: in a fixture tree under /tmp that walk was most of a simulated board's system time.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sysfs/unique_fd.h"

namespace jetchar::sysfs {

class InRootLookup {
 public:
  /// The lookup inside `dir`; null where the kernel cannot do it (no openat2, no /proc), so that
  /// the caller walks paths itself.
  static std::unique_ptr<const InRootLookup> open(const std::filesystem::path& dir);

  /// The canonical form of the absolute `path` inside the directory ("/" for the directory
  /// itself); nullopt when the kernel gives no answer: nothing there (a caller's walk takes the
  /// missing part as it is), a loop, a name too long, a magic link.
  std::optional<std::string> canonical(std::string_view path) const;

 private:
  InRootLookup(UniqueFd dir, std::string real_dir) : dir_(std::move(dir)), real_dir_(std::move(real_dir)) {}

  UniqueFd dir_;
  std::string real_dir_;  ///< the directory's own path as the kernel names it (its symlinks resolved)
};

}  // namespace jetchar::sysfs
