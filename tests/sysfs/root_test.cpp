#include "sysfs/root.h"

#include <gtest/gtest.h>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;

TEST(RootTest, HostRootResolvesToItself) {
  const Root root;
  EXPECT_TRUE(root.is_host_root());
  EXPECT_EQ(root.resolve("/proc/stat"), fs::path("/proc/stat"));
}

TEST(RootTest, PrefixedRootResolvesUnderThePrefix) {
  testing::TempDir dir;
  const Root root(dir.path());
  EXPECT_EQ(root.resolve("/sys/class/hwmon"), dir.path() / "sys/class/hwmon");
  EXPECT_EQ(root.kernel_path(dir.path() / "sys/class/hwmon"), "/sys/class/hwmon");
}

TEST(RootTest, MissingPrefixIsAnError) { EXPECT_THROW(Root("/nonexistent/jetchar-root"), IoError); }

TEST(RootTest, RelativeKernelPathIsAnError) {
  testing::TempDir dir;
  EXPECT_THROW(Root(dir.path()).resolve("sys/class"), IoError);
}

TEST(RootTest, AbsoluteSymlinksStayInsideThePrefix) {
  testing::TempDir dir;
  dir.write("sys/firmware/devicetree/base/model", std::string("NVIDIA Jetson AGX Orin\0", 23));
  fs::create_directories(dir.path() / "proc");
  fs::create_symlink("/sys/firmware/devicetree/base", dir.path() / "proc/device-tree");
  const Root root(dir.path());
  EXPECT_EQ(root.canonical("/proc/device-tree/model"), "/sys/firmware/devicetree/base/model");
  EXPECT_EQ(read_string(root, "/proc/device-tree/model"), "NVIDIA Jetson AGX Orin");
}

TEST(RootTest, RelativeSymlinksLikeSysClassResolve) {
  testing::TempDir dir;
  dir.write("sys/devices/platform/17000000.gpu/devfreq/17000000.gpu/cur_freq", "306000000\n");
  fs::create_directories(dir.path() / "sys/class/devfreq");
  fs::create_symlink("../../devices/platform/17000000.gpu/devfreq/17000000.gpu",
                     dir.path() / "sys/class/devfreq/17000000.gpu");
  const Root root(dir.path());
  EXPECT_EQ(root.canonical("/sys/class/devfreq/17000000.gpu/cur_freq"),
            "/sys/devices/platform/17000000.gpu/devfreq/17000000.gpu/cur_freq");
  EXPECT_EQ(read_int(root, "/sys/class/devfreq/17000000.gpu/cur_freq"), 306000000);
}

TEST(RootTest, SymlinkLoopIsAnErrorNotAHang) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "sys");
  fs::create_symlink("/sys/a", dir.path() / "sys/b");
  fs::create_symlink("/sys/b", dir.path() / "sys/a");
  EXPECT_THROW(Root(dir.path()).canonical("/sys/a/x"), IoError);
}

TEST(RootTest, GlobMatchesComponentWildcards) {
  testing::TempDir dir;
  dir.write("sys/class/hwmon/hwmon0/name", "cpu_thermal\n");
  dir.write("sys/class/hwmon/hwmon3/name", "ina3221\n");
  dir.write("sys/class/hwmon/hwmon3/in1_label", "VDD_IN\n");
  const Root root(dir.path());
  EXPECT_EQ(root.glob("/sys/class/hwmon/hwmon*/name"),
            (std::vector<std::string>{"/sys/class/hwmon/hwmon0/name", "/sys/class/hwmon/hwmon3/name"}));
  EXPECT_EQ(root.glob("/sys/class/hwmon/*/in?_label"), (std::vector<std::string>{"/sys/class/hwmon/hwmon3/in1_label"}));
  EXPECT_TRUE(root.glob("/sys/class/thermal/*/type").empty());
  EXPECT_EQ(root.list("/sys/class/hwmon"), (std::vector<std::string>{"hwmon0", "hwmon3"}));
  EXPECT_TRUE(root.list("/sys/class/missing").empty());
}

}  // namespace
}  // namespace jetchar::sysfs
