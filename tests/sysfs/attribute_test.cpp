#include "sysfs/attribute.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

class AttributeTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  Root root{dir.path()};
};

TEST_F(AttributeTest, ReadsTrimmedStrings) {
  dir.write("sys/a", "schedutil\n");
  EXPECT_EQ(read_string(root, "/sys/a"), "schedutil");
  EXPECT_EQ(try_read_string(root, "/sys/missing"), std::nullopt);
}

TEST_F(AttributeTest, ReadsIntegersAndUnitSuffixes) {
  dir.write("sys/freq", "1420800\n");
  dir.write("sys/limit", "1000 ma\n");
  dir.write("sys/neg", "-256\n");
  EXPECT_EQ(read_int(root, "/sys/freq"), 1420800);
  EXPECT_EQ(read_int(root, "/sys/neg"), -256);
  EXPECT_EQ(read_int(root, "/sys/limit", true), 1000);
  EXPECT_THROW(read_int(root, "/sys/limit"), FormatError);
  EXPECT_EQ(try_read_int(root, "/sys/limit"), std::nullopt);
}

TEST_F(AttributeTest, MalformedIntegerNamesPathAndValue) {
  dir.write("sys/bad", "12abc3\n");
  try {
    read_int(root, "/sys/bad");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "/sys/bad: unexpected content '12abc3', expected an integer");
  }
}

TEST_F(AttributeTest, ReadsListsAndDeviceTreeStrings) {
  dir.write("sys/freqs", "114750000 216750000 318750000 \n");
  dir.write("sys/govs", "performance schedutil userspace\n");
  dir.write("sys/online", "0-3,6\n");
  dir.write("sys/compatible", std::string("nvidia,p3737-0000+p3701-0000\0nvidia,tegra234\0", 45));
  EXPECT_EQ(read_int_list(root, "/sys/freqs"), (std::vector<std::int64_t>{114750000, 216750000, 318750000}));
  EXPECT_EQ(read_word_list(root, "/sys/govs"), (std::vector<std::string>{"performance", "schedutil", "userspace"}));
  EXPECT_EQ(read_cpu_list(root, "/sys/online"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(read_dt_strings(root, "/sys/compatible"),
            (std::vector<std::string>{"nvidia,p3737-0000+p3701-0000", "nvidia,tegra234"}));
}

TEST_F(AttributeTest, RejectsBinaryGarbageInDeviceTreeStrings) {
  dir.write("sys/compatible", std::string("nvidia\x01\x02\0", 9));
  EXPECT_THROW(read_dt_strings(root, "/sys/compatible"), FormatError);
}

TEST_F(AttributeTest, MissingFileNamesPathOperationAndErrno) {
  try {
    read_string(root, "/sys/nope");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_EQ(e.path(), "/sys/nope");
    EXPECT_EQ(e.operation(), "read");
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_STREQ(e.what(), "cannot read /sys/nope: No such file or directory");
  }
}

TEST_F(AttributeTest, WritesAndVerifiesByReadBack) {
  dir.write("sys/max_freq", "1000\n");
  write_int(root, "/sys/max_freq", 2000, Verify::kReadBack);
  EXPECT_EQ(read_int(root, "/sys/max_freq"), 2000);
}

TEST_F(AttributeTest, WriteToMissingAttributeNamesTheValue) {
  try {
    write_string(root, "/sys/missing/max_freq", "1500");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_EQ(e.operation(), "write");
    EXPECT_NE(std::string(e.what()).find("'1500'"), std::string::npos);
  }
}

TEST_F(AttributeTest, WriteToReadOnlyAttributeReportsEacces) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores file modes";
  const auto file = dir.write("sys/ro", "1\n");
  ::chmod(file.c_str(), 0444);
  try {
    write_string(root, "/sys/ro", "0");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), EACCES);
  }
}

}  // namespace
}  // namespace jetchar::sysfs
