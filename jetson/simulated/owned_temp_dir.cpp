#include "jetson/simulated/owned_temp_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "jetson/simulated/board_fixture.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOwnerSuffix = ".jetchar-owner";

fs::path owner_file_of(const fs::path& dir) { return dir.string() + std::string(kOwnerSuffix); }

}  // namespace

std::size_t remove_orphaned_temp_dirs(const fs::path& parent) noexcept {
  // Listed first: a folder that changes while it is read may skip entries.
  std::vector<fs::path> owner_files;
  std::error_code ec;
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > kOwnerSuffix.size() && name.ends_with(kOwnerSuffix)) owner_files.push_back(it->path());
  }
  std::size_t removed = 0;
  for (const fs::path& owner_file : owner_files) {
    const std::string name = owner_file.filename().string();
    const sysfs::UniqueFd owner(::open(owner_file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    // Held: its process is alive. Unreadable (another user's): not ours to judge.
    if (!owner || ::flock(owner.get(), LOCK_EX | LOCK_NB) != 0) continue;
    const fs::path dir = parent / name.substr(0, name.size() - kOwnerSuffix.size());
    // Only a folder of this user's, not a link planted in a shared /tmp.
    struct stat folder {};
    if (::lstat(dir.c_str(), &folder) == 0 && S_ISDIR(folder.st_mode) && folder.st_uid == ::geteuid()) {
      remove_board_tree(dir);
    }
    // Unlinked while this process holds the lock, so no third process takes it for a live owner's.
    ::unlink(owner_file.c_str());
    ++removed;
  }
  return removed;
}

OwnedTempDir::OwnedTempDir(std::string_view prefix) {
  std::error_code ec;
  const fs::path parent = fs::temp_directory_path(ec);
  if (ec) throw sysfs::IoError("TMPDIR", "find the temporary directory", ec.value());
  remove_orphaned_temp_dirs(parent);
  std::string pattern = (parent / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw sysfs::IoError(pattern, "create temporary folder", errno);
  dir_ = pattern;
  // The owner file appears under its name already locked (locked under another name, then renamed):
  // a sweeper that found it unlocked would take the new folder for an orphan.
  const fs::path owner_file = owner_file_of(dir_);
  const fs::path unlocked = dir_.string() + ".new-owner";
  owner_.reset(::open(unlocked.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  const int error = !owner_                                               ? errno
                    : ::flock(owner_.get(), LOCK_EX | LOCK_NB) != 0       ? errno
                    : ::rename(unlocked.c_str(), owner_file.c_str()) != 0 ? errno
                                                                          : 0;
  if (error != 0) {
    ::unlink(unlocked.c_str());
    release();
    throw sysfs::IoError(owner_file.string(), "create the temporary folder's owner file", error);
  }
}

OwnedTempDir::~OwnedTempDir() { release(); }

OwnedTempDir::OwnedTempDir(OwnedTempDir&& other) noexcept
    : dir_(std::exchange(other.dir_, {})), owner_(std::move(other.owner_)) {}

OwnedTempDir& OwnedTempDir::operator=(OwnedTempDir&& other) noexcept {
  if (this != &other) {
    release();
    dir_ = std::exchange(other.dir_, {});
    owner_ = std::move(other.owner_);
  }
  return *this;
}

void OwnedTempDir::release() noexcept {
  if (dir_.empty()) return;
  remove_board_tree(dir_);
  if (owner_) ::unlink(owner_file_of(dir_).c_str());
  owner_.reset();
  dir_.clear();
}

}  // namespace jetchar::jetson
