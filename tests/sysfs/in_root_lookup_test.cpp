// The kernel's resolution inside a fixture tree (openat2 RESOLVE_IN_ROOT) against Root's own walk
// of the same paths (the walk runs whenever a Root records its accesses): the two must agree on
// every path a board's tree holds, and the lookup must leave to the walk what it cannot answer.
#include "sysfs/in_root_lookup.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "sysfs/error.h"
#include "sysfs/root.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;

// A tree with the kinds of links a board has: sysfs's relative ones, an absolute one
// (/proc/device-tree), a chain, one that climbs past the top, and one that leads nowhere.
void write_linked_tree(const testing::TempDir& dir) {
  dir.write("sys/devices/platform/gpu/devfreq/gpu/cur_freq", "306000000\n");
  dir.write("sys/firmware/devicetree/base/model", "AGX\n");
  fs::create_directories(dir.path() / "sys/class/devfreq");
  fs::create_directories(dir.path() / "proc");
  fs::create_symlink("../../devices/platform/gpu/devfreq/gpu", dir.path() / "sys/class/devfreq/gpu");
  fs::create_symlink("/sys/firmware/devicetree/base", dir.path() / "proc/device-tree");
  fs::create_symlink("device-tree", dir.path() / "proc/dt");
  fs::create_symlink("../../../../sys/firmware", dir.path() / "proc/above");
  fs::create_symlink("/sys/nothing/here", dir.path() / "proc/dangling");
}

TEST(InRootLookupTest, AgreesWithTheWalkOnEveryKindOfLink) {
  testing::TempDir dir;
  write_linked_tree(dir);
  const Root kernel(dir.path());
  Root walked(dir.path());
  walked.record_accesses(std::make_shared<AccessLog>());
  for (const char* path :
       {"/", "/sys", "/sys/class/devfreq/gpu/cur_freq", "/sys/class/devfreq/gpu", "/proc/device-tree/model",
        "/proc/dt/model", "/proc/above/devicetree/base/model", "/sys/class/devfreq/gpu/../gpu/cur_freq",
        "/sys//class/./devfreq/gpu/", "/../sys/firmware", "/sys/class/devfreq/gpu/missing/file", "/proc/dangling",
        "/proc/dangling/below", "/sys/devices/platform/gpu/devfreq/gpu/cur_freq/x"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(kernel.canonical(path), walked.canonical(path));
  }
  EXPECT_EQ(kernel.canonical("/proc/dt/model"), "/sys/firmware/devicetree/base/model");
  EXPECT_EQ(kernel.canonical("/sys/class/devfreq/gpu/missing/file"),
            "/sys/devices/platform/gpu/devfreq/gpu/missing/file");
}

TEST(InRootLookupTest, AnswersOnlyForWhatExistsInsideTheDirectory) {
  testing::TempDir dir;
  write_linked_tree(dir);
  const auto lookup = InRootLookup::open(dir.path());
  if (!lookup) GTEST_SKIP() << "this kernel has no openat2 (Linux 5.6): Root walks every path itself";
  EXPECT_EQ(lookup->canonical("/"), "/");
  EXPECT_EQ(lookup->canonical("/proc/device-tree"), "/sys/firmware/devicetree/base");
  EXPECT_EQ(lookup->canonical("/proc/above/devicetree"), "/sys/firmware/devicetree");
  EXPECT_EQ(lookup->canonical("/proc/dangling"), std::nullopt);
  EXPECT_EQ(lookup->canonical("/sys/missing"), std::nullopt);
}

TEST(InRootLookupTest, ADirectoryNamedThroughASymlinkAnswersInItsOwnTerms) {
  testing::TempDir dir;
  write_linked_tree(dir);
  testing::TempDir other;
  fs::create_directory_symlink(dir.path(), other.path() / "board");
  const Root root(other.path() / "board");
  EXPECT_EQ(root.canonical("/sys/class/devfreq/gpu/cur_freq"), "/sys/devices/platform/gpu/devfreq/gpu/cur_freq");
}

TEST(InRootLookupTest, ALoopIsLeftToTheWalkWhichNamesIt) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "sys");
  fs::create_symlink("/sys/a", dir.path() / "sys/b");
  fs::create_symlink("/sys/b", dir.path() / "sys/a");
  if (const auto lookup = InRootLookup::open(dir.path())) {
    EXPECT_EQ(lookup->canonical("/sys/a"), std::nullopt);
  }
  EXPECT_THROW(Root(dir.path()).canonical("/sys/a"), IoError);
}

}  // namespace
}  // namespace jetchar::sysfs
