#include "sysfs/page_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "tests/support/disk_scratch_dir.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;
using ScratchDir = jetchar::testing::DiskScratchDir;
using jetchar::testing::read_all;

std::uint64_t page_bytes() { return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)); }

TEST(PageCacheTest, FileJustReadIsResident) {
  ScratchDir dir;
  const std::uint64_t size = 256 * page_bytes() + 100;  // a partial last page
  const fs::path file = dir.write("data.bin", size);
  read_all(file);
  const Residency residency = page_residency({file});
  EXPECT_EQ(residency.files, 1u);
  EXPECT_EQ(residency.page_size_bytes, page_bytes());
  EXPECT_EQ(residency.total_bytes, size);
  EXPECT_EQ(residency.total_pages, 257u);
  EXPECT_GT(residency.resident_pages, 0u);
  EXPECT_LE(residency.resident_pages, residency.total_pages);
  EXPECT_LE(residency.resident_bytes, size);
  ASSERT_TRUE(residency.resident_fraction().has_value());
  EXPECT_GT(*residency.resident_fraction(), 0.0);
}

TEST(PageCacheTest, PartialLastPageCountsItsFileBytes) {
  ScratchDir dir;
  const fs::path file = dir.write("small.txt", 100);
  read_all(file);
  const Residency residency = page_residency({file});
  EXPECT_EQ(residency.total_pages, 1u);
  ASSERT_EQ(residency.resident_pages, 1u);
  EXPECT_EQ(residency.resident_bytes, 100u);
}

TEST(PageCacheTest, EvictionDropsResidency) {
  ScratchDir dir;
  // Written but never synced: the pages are dirty, so eviction has to write them back first.
  const fs::path dirty = dir.write("dirty.bin", 128 * page_bytes());
  const fs::path clean = dir.write("set/clean.bin", 128 * page_bytes());
  read_all(clean);
  const Residency before = page_residency({dir.path()});
  ASSERT_EQ(before.files, 2u);
  ASSERT_GT(before.resident_pages, 0u);
  const EvictionSummary evicted = evict_files({dirty, dir.path() / "set"});
  EXPECT_EQ(evicted.files, 2u);
  EXPECT_EQ(evicted.bytes, 256 * page_bytes());
  if (dir.on_tmpfs()) GTEST_SKIP() << dir.path() << " is on tmpfs, whose pages cannot be evicted";
  const Residency after = page_residency({dir.path()});
  EXPECT_LT(after.resident_pages, before.resident_pages);
  EXPECT_LT(*after.resident_fraction(), 0.5) << after.resident_pages << " of " << after.total_pages << " pages";
}

TEST(PageCacheTest, DirectoriesAreWalkedAndEmptyFilesHaveNoPages) {
  ScratchDir dir;
  dir.write("set/empty.bin", 0);
  EXPECT_FALSE(page_residency({dir.path()}).resident_fraction().has_value()) << "only an empty file";
  const fs::path nested = dir.write("set/a/b/img.jpg", 3 * page_bytes());
  fs::create_symlink(nested, dir.path() / "set/link.jpg");  // not followed inside a directory
  ::mkfifo((dir.path() / "set/fifo").c_str(), 0600);        // not a regular file: skipped
  const Residency residency = page_residency({dir.path() / "set"});
  EXPECT_EQ(residency.files, 2u);
  EXPECT_EQ(residency.total_pages, 3u);
  EXPECT_EQ(residency.total_bytes, 3 * page_bytes());
  // An explicitly named symlink is followed.
  EXPECT_EQ(page_residency({dir.path() / "set/link.jpg"}).files, 1u);
  EXPECT_EQ(page_residency({}).files, 0u);
}

TEST(PageCacheTest, BadPathsNameThePath) {
  ScratchDir dir;
  const fs::path missing = dir.path() / "nope.bin";
  for (const auto& call :
       {+[](const fs::path& p) { page_residency({p}); }, +[](const fs::path& p) { evict_files({p}); }}) {
    try {
      call(missing);
      FAIL() << "no error";
    } catch (const IoError& e) {
      EXPECT_EQ(e.path(), missing.string());
      EXPECT_EQ(e.error_number(), ENOENT);
    }
  }
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(page_residency({fifo}), IoError);
}

TEST(PageCacheFixture, DropWritesThreeToDropCaches) {
  testing::TempDir dir;
  dir.write("proc/sys/vm/drop_caches", "0\n");
  const Root root(dir.path());
  drop_page_cache(root);
  EXPECT_EQ(read_string(root, "/proc/sys/vm/drop_caches"), "3");
}

TEST(PageCacheFixture, MissingControlFileIsAnIoError) {
  testing::TempDir dir;
  try {
    drop_page_cache(Root(dir.path()));
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.path(), "/proc/sys/vm/drop_caches");
    EXPECT_EQ(e.error_number(), ENOENT);
  }
}

// Runs drop_page_cache as an unprivileged user; returns 0 when it failed with EACCES and a
// message that says root is needed.
int drop_as_unprivileged_user() {
  try {
    drop_page_cache(Root());
    return 1;
  } catch (const IoError& e) {
    if (e.error_number() != EACCES) return 2;
    if (std::string(e.what()).find("needs root") == std::string::npos) return 3;
    if (e.path() != "/proc/sys/vm/drop_caches") return 4;
    return 0;
  } catch (...) {
    return 5;
  }
}

TEST(PageCacheIntegration, DropWithoutRootIsEacces) {
  if (::geteuid() != 0) {
    EXPECT_EQ(drop_as_unprivileged_user(), 0);
    return;
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Become "nobody"; setuid to a non-zero id also clears the effective capabilities.
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) ::_exit(10);
    ::_exit(drop_as_unprivileged_user());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no error, 2: not EACCES, 3: message, 4: path, 5: other, 10: setuid";
}

TEST(PageCacheIntegration, DropEmptiesTheCacheOfAFile) {
  if (::geteuid() != 0) GTEST_SKIP() << "dropping the whole page cache needs root";
  if (::access("/proc/sys/vm/drop_caches", W_OK) != 0) GTEST_SKIP() << "/proc/sys is not writable here";
  ScratchDir dir;
  if (dir.on_tmpfs()) GTEST_SKIP() << dir.path() << " is on tmpfs, whose pages cannot be dropped";
  const fs::path file = dir.write("warm.bin", 64 * page_bytes());
  read_all(file);
  const Residency before = page_residency({file});
  ASSERT_GT(before.resident_pages, 0u);
  drop_page_cache(Root());
  const Residency after = page_residency({file});
  EXPECT_LT(after.resident_pages, before.resident_pages);
}

}  // namespace
}  // namespace jetchar::sysfs
