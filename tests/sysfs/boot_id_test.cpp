// The boot id as the kernel prints it (drivers/char/random.c, proc_do_uuid: "%pU" and a newline),
// and what counts as no boot id.
#include "sysfs/boot_id.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

class BootIdTest : public ::testing::Test {
 protected:
  void write(const std::string& content) {
    std::filesystem::create_directories(dir.path() / "proc/sys/kernel/random");
    std::ofstream(dir.path() / "proc/sys/kernel/random/boot_id") << content;
  }
  testing::TempDir dir;
  Root root{dir.path()};
};

TEST_F(BootIdTest, ReadsTheUuidWithoutItsNewline) {
  write("4f2a9c1e-0b3d-4e5f-8a6b-7c8d9e0f1a2b\n");
  EXPECT_EQ(boot_id(root), "4f2a9c1e-0b3d-4e5f-8a6b-7c8d9e0f1a2b");
}

TEST_F(BootIdTest, IsLowerCased) {
  write("4F2A9C1E-0B3D-4E5F-8A6B-7C8D9E0F1A2B\n");
  EXPECT_EQ(boot_id(root), "4f2a9c1e-0b3d-4e5f-8a6b-7c8d9e0f1a2b");
}

TEST_F(BootIdTest, AnAbsentOrMalformedFileIsNoBootId) {
  EXPECT_EQ(boot_id(root), "");
  write("");
  EXPECT_EQ(boot_id(root), "");
  write("4f2a9c1e-0b3d-4e5f-8a6b\n");
  EXPECT_EQ(boot_id(root), "");
  write("4f2a9c1e+0b3d-4e5f-8a6b-7c8d9e0f1a2b\n");
  EXPECT_EQ(boot_id(root), "");
  write("4f2a9c1e-0b3d-4e5f-8a6b-7c8d9e0f1a2g\n");
  EXPECT_EQ(boot_id(root), "");
}

TEST(BootId, TheHostHasOne) {
  if (!std::filesystem::exists("/proc/sys/kernel/random/boot_id")) GTEST_SKIP() << "no /proc here";
  EXPECT_EQ(boot_id(Root("/")).size(), 36u);
}

}  // namespace
}  // namespace jetchar::sysfs
