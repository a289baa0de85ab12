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

// BPMP debugfs files are firmware output; one board printed its EMC table with a unit after it.
TEST_F(AttributeTest, FirmwareUnitSuffixesAreAcceptedWhereAllowed) {
  dir.write("sys/possible_rates", "204000 665600 2133000 (kHz)\n");
  dir.write("sys/rate", "3199000 (kHz)\n");
  EXPECT_EQ(read_int_list(root, "/sys/possible_rates", true), (std::vector<std::int64_t>{204000, 665600, 2133000}));
  EXPECT_THROW(read_int_list(root, "/sys/possible_rates"), FormatError);
  EXPECT_EQ(read_int(root, "/sys/rate", true), 3199000);
  dir.write("sys/garbage", "12 (k)Hz\n");
  EXPECT_THROW(read_int(root, "/sys/garbage", true), FormatError);
}

TEST_F(AttributeTest, InjectedErrorsFailReadsAndWritesOfThatPathOnly) {
  dir.write("sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1497600\n");
  dir.write("sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "1497600\n");
  ASSERT_EQ(::symlink("devices/system/cpu/cpufreq/policy4", (dir.path() / "sys/policy4").c_str()), 0);
  dir.write(InjectedErrors::kFileName,
            "# an inactive policy on Linux >= 5.19\n"
            "read EBUSY /sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq\n"
            "write EBUSY /sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq\n");
  const Root fresh(dir.path());
  try {
    read_int(fresh, "/sys/policy4/scaling_cur_freq");  // through a link: keyed by the canonical path
    FAIL();
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), EBUSY);
    EXPECT_STREQ(e.what(), "cannot read /sys/policy4/scaling_cur_freq: Device or resource busy (EBUSY)");
  }
  EXPECT_THROW(write_string(fresh, "/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1"), IoError);
  EXPECT_EQ(read_int(fresh, "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"), 1497600);
  EXPECT_TRUE(fresh.exists("/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq"));
  // The model behind a simulated board still reads the file.
  EXPECT_EQ(read_int(fresh.without_injected_errors(), "/sys/policy4/scaling_cur_freq"), 1497600);
  // The table is re-read when it changes.
  dir.write(InjectedErrors::kFileName, "read ENODEV /sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq\n");
  EXPECT_EQ(read_int(fresh, "/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq"), 1497600);
  EXPECT_THROW(read_int(fresh, "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"), IoError);
}

TEST_F(AttributeTest, MalformedInjectedErrorTableNamesTheLine) {
  dir.write("sys/a", "1\n");
  dir.write(InjectedErrors::kFileName, "read EBUSY /sys/a\nread EWHAT /sys/a\n");
  try {
    read_string(Root(dir.path()), "/sys/a");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("EWHAT"), std::string::npos) << e.what();
  }
}

TEST_F(AttributeTest, TheHostRootHasNoInjectedErrors) {
  EXPECT_EQ(Root("/").injected_error("/sys/devices/system/cpu/online", Access::kRead), std::nullopt);
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
    EXPECT_STREQ(e.what(), "cannot read /sys/nope: No such file or directory (ENOENT)");
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
