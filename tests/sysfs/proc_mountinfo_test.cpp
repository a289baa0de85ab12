#include "sysfs/proc_mountinfo.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

constexpr const char* kMountinfo =
    "22 1 179:1 / / rw,relatime shared:1 - ext4 /dev/mmcblk0p1 rw\n"
    "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "30 22 0:27 / /tmp rw,nosuid,nodev shared:15 - tmpfs tmpfs rw,size=15501096k\n"
    "41 22 259:1 / /mnt/My\\040Data rw,noatime shared:20 master:3 - ext4 /dev/nvme0n1p1 rw\n"
    "42 41 259:1 /sub /mnt/My\\040Data/bind rw,noatime - ext4 /dev/nvme0n1p1 rw\n"
    "43 22 0:40 / /srv/over rw - overlay overlay rw,lowerdir=/mnt/My\\040Data/lower,upperdir=/mnt/My\\040Data/up\n";

TEST(ProcMountinfoTest, ParsesEveryField) {
  const auto mounts = parse_proc_mountinfo(kMountinfo);
  ASSERT_EQ(mounts.size(), 6u);
  const MountInfo& root = mounts[0];
  EXPECT_EQ(root.mount_id, 22);
  EXPECT_EQ(root.parent_id, 1);
  EXPECT_EQ(root.major, 179u);
  EXPECT_EQ(root.minor, 1u);
  EXPECT_EQ(root.root, "/");
  EXPECT_EQ(root.mount_point, "/");
  EXPECT_EQ(root.mount_options, "rw,relatime");
  EXPECT_EQ(root.optional_fields, std::vector<std::string>{"shared:1"});
  EXPECT_EQ(root.fs_type, "ext4");
  EXPECT_EQ(root.source, "/dev/mmcblk0p1");
  EXPECT_EQ(root.super_options, "rw");
  EXPECT_EQ(mounts[3].mount_point, "/mnt/My Data");
  EXPECT_EQ(mounts[3].optional_fields, (std::vector<std::string>{"shared:20", "master:3"}));
  EXPECT_TRUE(mounts[4].optional_fields.empty());
  EXPECT_EQ(mounts[4].root, "/sub");
  EXPECT_EQ(mounts[5].super_options, "rw,lowerdir=/mnt/My\\040Data/lower,upperdir=/mnt/My\\040Data/up");
  EXPECT_EQ(mount_option(mounts[5].super_options, "upperdir"), "/mnt/My Data/up");
}

TEST(ProcMountinfoTest, OptionsSplitOnlyOnUnescapedCommas) {
  const std::string options = "rw,lowerdir=/l,upperdir=/data/a\\054b,workdir=/w,index";
  EXPECT_EQ(split_mount_options(options),
            (std::vector<std::string>{"rw", "lowerdir=/l", "upperdir=/data/a,b", "workdir=/w", "index"}));
  EXPECT_EQ(mount_option(options, "upperdir"), "/data/a,b");
  EXPECT_EQ(mount_option(options, "lowerdir"), "/l");
  EXPECT_FALSE(mount_option(options, "index").has_value()) << "a flag has no value";
  EXPECT_FALSE(mount_option(options, "upper").has_value()) << "whole keys only";
  EXPECT_FALSE(mount_option("", "rw").has_value());
  EXPECT_TRUE(split_mount_options("").empty());
}

TEST(ProcMountinfoTest, DecodesOctalEscapes) {
  EXPECT_EQ(decode_mount_escapes("a\\040b\\011c\\012d\\134e"), "a b\tc\nd\\e");
  EXPECT_EQ(decode_mount_escapes("plain"), "plain");
  EXPECT_EQ(decode_mount_escapes("trail\\04"), "trail\\04");  // incomplete escape kept as is
  EXPECT_EQ(decode_mount_escapes("\\999"), "\\999");
  EXPECT_EQ(decode_mount_escapes("\\777"), "\\777");  // beyond one byte
}

TEST(ProcMountinfoTest, FindsTheMountHoldingAPath) {
  const auto mounts = parse_proc_mountinfo(kMountinfo);
  EXPECT_EQ(find_mount_containing(mounts, "/home/user")->mount_point, "/");
  EXPECT_EQ(find_mount_containing(mounts, "/tmp")->fs_type, "tmpfs");
  EXPECT_EQ(find_mount_containing(mounts, "/tmpfoo")->mount_point, "/") << "whole components only";
  EXPECT_EQ(find_mount_containing(mounts, "/mnt/My Data/x.jpg")->mount_id, 41);
  EXPECT_EQ(find_mount_containing(mounts, "/mnt/My Data/bind/x.jpg")->mount_id, 42);
  EXPECT_EQ(find_mount_containing({}, "/x"), nullptr);
  // Stacked mounts on one point: the last one is on top.
  const auto stacked = parse_proc_mountinfo(
      "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n2 1 8:2 / /d rw - ext4 /dev/sda2 rw\n3 1 0:50 / /d rw - tmpfs t rw\n");
  EXPECT_EQ(find_mount_containing(stacked, "/d/f")->mount_id, 3);
}

TEST(ProcMountinfoTest, MalformedLinesNameFileAndLine) {
  for (const char* bad : {"22 1 179:1 / / rw shared:1 ext4 /dev/root rw\n",  // no separator
                          "22 1 179:1 / / rw - ext4 /dev/root\n",            // missing super options
                          "22 1 179:1 / / rw - ext4 /dev/root rw extra\n", "x 1 179:1 / / rw - ext4 /dev/root rw\n",
                          "22 1 179 / / rw - ext4 /dev/root rw\n", "22 1 179:x / / rw - ext4 /dev/root rw\n",
                          "22 1 179:1  / rw - ext4 /dev/root rw\n",  // empty root
                          "22 1 179:1 / / rw -  /dev/root rw\n",     // empty type
                          "22 1 179:1 / -\n"}) {
    EXPECT_THROW(parse_proc_mountinfo(bad), FormatError) << bad;
  }
  try {
    parse_proc_mountinfo("22 1 179:1 / / rw - ext4 /dev/root rw\n23 22 bad / /x rw - ext4 /dev/x rw\n");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("/proc/self/mountinfo line 2"), std::string::npos) << e.what();
  }
}

TEST(ProcMountinfoFixture, ReadsThroughRoot) {
  testing::TempDir dir;
  dir.write("proc/self/mountinfo", kMountinfo);
  EXPECT_EQ(read_proc_mountinfo(Root(dir.path())).size(), 6u);
}

TEST(ProcMountinfoIntegration, ReadsThisMachine) {
  const auto mounts = read_proc_mountinfo(Root());
  ASSERT_FALSE(mounts.empty());
  const MountInfo* root = find_mount_containing(mounts, "/");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->mount_point, "/");
}

}  // namespace
}  // namespace jetchar::sysfs
