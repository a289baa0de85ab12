#include "sysfs/cpu_list.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "sysfs/error.h"
#include "tests/support/build_tree.h"

namespace jetchar::sysfs {
namespace {

TEST(CpuListTest, ParsesRangesAndSingles) {
  EXPECT_EQ(parse_cpu_list("0-3,6\n"), (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(parse_cpu_list("0,3-5"), (std::vector<int>{0, 3, 4, 5}));
  EXPECT_EQ(parse_cpu_list("7"), (std::vector<int>{7}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("\n").empty());
}

TEST(CpuListTest, SortsAndRemovesDuplicates) { EXPECT_EQ(parse_cpu_list("4-5,0-1,1"), (std::vector<int>{0, 1, 4, 5})); }

// cpufreq_show_cpus() (drivers/cpufreq/cpufreq.c) prints related_cpus/affected_cpus as the CPU
// numbers separated by single spaces, then a newline; an empty mask prints only the newline.
TEST(CpuListTest, ParsesCpufreqSpaceSeparatedForm) {
  EXPECT_EQ(parse_cpu_list("0 1 2 3\n"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_cpu_list("4 5 6 7\n"), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(parse_cpu_list("0 3 4 5"), (std::vector<int>{0, 3, 4, 5}));
  EXPECT_EQ(parse_cpu_list("8\n"), (std::vector<int>{8}));
}

// The fuzz target's seeds are the forms real kernels print (fuzz/seeds/sysfs_cpu_list_fuzz): each
// parses, and to what its name promises where it says.
TEST(CpuListTest, ParsesEveryFuzzSeed) {
  const auto dir = jetchar::testing::source_dir() / "fuzz/seeds/sysfs_cpu_list_fuzz";
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    const auto cpus = parse_cpu_list(bytes, entry.path().string());
    const bool empty_mask = entry.path().filename().string().find("empty") != std::string::npos;
    EXPECT_EQ(cpus.empty(), empty_mask) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 5);
}

TEST(CpuListTest, RejectsMalformedLists) {
  for (const char* bad : {"a", "0-", "-3", "3-1", "0,,1", "1  2", "0-3x", "0 1,2", " 1"}) {
    EXPECT_THROW(parse_cpu_list(bad, "online"), FormatError) << bad;
  }
  try {
    parse_cpu_list("3-1", "/sys/devices/system/cpu/online");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("/sys/devices/system/cpu/online"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("3-1"), std::string::npos);
  }
}

TEST(CpuListTest, OverlappingRangesAndTheLargestCpuNumber) {
  EXPECT_EQ(parse_cpu_list("2-5,0-3,4"), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_cpu_list("2147483646-2147483647,2147483647"), (std::vector<int>{2147483646, 2147483647}));
  EXPECT_EQ(format_cpu_list({2147483646, 2147483647}), "2147483646-2147483647");
  EXPECT_EQ(parse_cpu_list("0-65535,0-65535,0-65535").size(), 65536u);
  EXPECT_THROW(parse_cpu_list("0-65535,70000"), FormatError) << "more CPUs than any kernel has";
}

TEST(CpuListTest, FormatsLikeTheKernel) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6}), "0-3,6");
  EXPECT_EQ(format_cpu_list({5, 0, 3, 4}), "0,3-5");
  EXPECT_EQ(format_cpu_list({0, 2}), "0,2");
  EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuListTest, RoundTrips) {
  for (const char* text : {"0-11", "0,3-5", "0-1,4-7,9"}) EXPECT_EQ(format_cpu_list(parse_cpu_list(text)), text);
}

}  // namespace
}  // namespace jetchar::sysfs
