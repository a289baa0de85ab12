#include "sysfs/proc_meminfo.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

constexpr const char* kJetsonMeminfo =
    "MemTotal:       31002192 kB\n"
    "MemFree:        27010304 kB\n"
    "MemAvailable:   29080228 kB\n"
    "Buffers:           41084 kB\n"
    "Cached:          2229400 kB\n"
    "SwapCached:            0 kB\n"
    "Active(anon):      56012 kB\n"
    "SwapTotal:      15501088 kB\n"
    "SwapFree:       15501088 kB\n"
    "NvMapMemUsed:     215044 kB\n"
    "HugePages_Total:       0\n"
    "HugePages_Free:        0\n"
    "Hugepagesize:       2048 kB\n";

TEST(ProcMeminfoTest, ParsesNamedFieldsAndEveryKey) {
  const MemInfo info = parse_proc_meminfo(kJetsonMeminfo);
  EXPECT_EQ(info.mem_total_kb, 31002192u);
  EXPECT_EQ(info.mem_free_kb, 27010304u);
  EXPECT_EQ(info.mem_available_kb, 29080228u);
  EXPECT_EQ(info.buffers_kb, 41084u);
  EXPECT_EQ(info.cached_kb, 2229400u);
  EXPECT_EQ(info.swap_total_kb, 15501088u);
  EXPECT_EQ(info.swap_free_kb, 15501088u);
  EXPECT_EQ(info.nvmap_mem_used_kb, 215044u);
  EXPECT_EQ(info.kb("Active(anon)"), 56012u);
  EXPECT_EQ(info.kb("Hugepagesize"), 2048u);
  EXPECT_EQ(info.counts.at("HugePages_Total"), 0u);
  EXPECT_FALSE(info.kb("HugePages_Total").has_value()) << "a count is not a size";
}

TEST(ProcMeminfoTest, AbsentKeysAreNulloptNotZero) {
  const MemInfo info = parse_proc_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\n");
  EXPECT_FALSE(info.nvmap_mem_used_kb.has_value());  // not a Tegra kernel
  EXPECT_FALSE(info.mem_available_kb.has_value());   // pre-3.14 kernel
  EXPECT_FALSE(info.kb("Nope").has_value());
}

TEST(ProcMeminfoTest, MalformedLinesNameFileAndLine) {
  for (const char* bad : {"MemTotal 5 kB\n", "MemTotal: kB\n", "MemTotal: 5 MB\n", "MemTotal: -5 kB\n",
                          "MemTotal: 5 kB extra\n", ": 5 kB\n", "Mem Total: 5 kB\n", "A: 1 kB\nA: 2 kB\n"}) {
    EXPECT_THROW(parse_proc_meminfo(bad), FormatError) << bad;
  }
  try {
    parse_proc_meminfo("MemTotal: 5 kB\nCached: lots kB\n");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("/proc/meminfo line 2"), std::string::npos) << e.what();
  }
}

TEST(ProcMeminfoFixture, ReadsThroughRoot) {
  testing::TempDir dir;
  dir.write("proc/meminfo", kJetsonMeminfo);
  EXPECT_EQ(read_proc_meminfo(Root(dir.path())).nvmap_mem_used_kb, 215044u);
}

TEST(ProcMeminfoIntegration, ReadsThisMachine) {
  const MemInfo info = read_proc_meminfo(Root());
  ASSERT_TRUE(info.mem_total_kb.has_value());
  ASSERT_TRUE(info.mem_available_kb.has_value());
  EXPECT_GT(*info.mem_total_kb, 0u);
  EXPECT_LE(*info.mem_available_kb, *info.mem_total_kb);
}

}  // namespace
}  // namespace jetchar::sysfs
