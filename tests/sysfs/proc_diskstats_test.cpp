#include "sysfs/proc_diskstats.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

// L4T R32 (kernel 4.9): 14 fields. R35 (5.10): 20 fields with discard and flush counters.
constexpr const char* kDiskstats =
    " 179       0 mmcblk0 30813 4702 2366522 27228 11207 12344 1002402 62856 0 29652 90400\n"
    " 259       0 nvme0n1 120345 77 9834221 40120 5567 8823 778800 9700 2 51234 49820 11 0 8192 3 612 210\n"
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "\n";

TEST(ProcDiskstatsTest, ParsesOldAndNewKernelLines) {
  const auto stats = parse_proc_diskstats(kDiskstats);
  ASSERT_EQ(stats.size(), 3u);
  const DiskStats& mmc = stats[0];
  EXPECT_EQ(mmc.major, 179u);
  EXPECT_EQ(mmc.minor, 0u);
  EXPECT_EQ(mmc.name, "mmcblk0");
  EXPECT_EQ(mmc.reads_completed, 30813u);
  EXPECT_EQ(mmc.reads_merged, 4702u);
  EXPECT_EQ(mmc.sectors_read, 2366522u);
  EXPECT_EQ(mmc.read_time_ms, 27228u);
  EXPECT_EQ(mmc.writes_completed, 11207u);
  EXPECT_EQ(mmc.writes_merged, 12344u);
  EXPECT_EQ(mmc.sectors_written, 1002402u);
  EXPECT_EQ(mmc.write_time_ms, 62856u);
  EXPECT_EQ(mmc.ios_in_progress, 0u);
  EXPECT_EQ(mmc.io_time_ms, 29652u);
  EXPECT_EQ(mmc.weighted_io_time_ms, 90400u);
  EXPECT_FALSE(mmc.discards_completed.has_value());
  EXPECT_FALSE(mmc.flushes_completed.has_value());
  EXPECT_EQ(mmc.bytes_read(), 2366522u * 512);
  EXPECT_EQ(mmc.bytes_written(), 1002402u * 512);

  const DiskStats* nvme = find_disk_stats(stats, "nvme0n1");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->ios_in_progress, 2u);
  EXPECT_EQ(nvme->discards_completed, 11u);
  EXPECT_EQ(nvme->sectors_discarded, 8192u);
  EXPECT_EQ(nvme->discard_time_ms, 3u);
  EXPECT_EQ(nvme->flushes_completed, 612u);
  EXPECT_EQ(nvme->flush_time_ms, 210u);
  EXPECT_EQ(find_disk_stats(stats, "sda"), nullptr);
}

TEST(ProcDiskstatsTest, MalformedLinesNameFileAndLine) {
  for (const char* bad : {"179 0 mmcblk0 1 2 3 4 5 6 7 8 9 10\n",                  // 13 fields
                          "179 0 mmcblk0 1 2 3 4 5 6 7 8 9 10 x\n",                // non-numeric
                          "x 0 mmcblk0 1 2 3 4 5 6 7 8 9 10 11\n",                 // bad major
                          "179 -1 mmcblk0 1 2 3 4 5 6 7 8 9 10 11\n",              // bad minor
                          "99999 0 sda 1 2 3 4 5 6 7 8 9 10 11\n",                 // major beyond 12 bits
                          "8 0 sda 1 2 36028797018963968 4 5 6 7 8 9 10 11\n"}) {  // bytes overflow
    EXPECT_THROW(parse_proc_diskstats(bad), FormatError) << bad;
  }
  try {
    parse_proc_diskstats("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2\n");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("/proc/diskstats line 2"), std::string::npos) << e.what();
  }
}

TEST(ProcDiskstatsTest, DeltaGivesBytesIopsAndBusyFraction) {
  const auto before = parse_proc_diskstats("179 0 mmcblk0 100 0 2000 0 50 0 1000 0 0 300 0\n").at(0);
  const auto after = parse_proc_diskstats("179 0 mmcblk0 300 0 6000 0 70 0 1800 0 1 800 0\n").at(0);
  const auto delta = disk_io_delta(before, after, 2'000'000'000);
  ASSERT_TRUE(delta.has_value());
  EXPECT_EQ(delta->reads_completed, 200u);
  EXPECT_EQ(delta->writes_completed, 20u);
  EXPECT_EQ(delta->bytes_read, 4000u * 512);
  EXPECT_EQ(delta->bytes_written, 800u * 512);
  EXPECT_DOUBLE_EQ(delta->read_iops, 100.0);
  EXPECT_DOUBLE_EQ(delta->write_iops, 10.0);
  EXPECT_DOUBLE_EQ(delta->read_bytes_per_s, 4000.0 * 512 / 2);
  EXPECT_DOUBLE_EQ(delta->write_bytes_per_s, 800.0 * 512 / 2);
  EXPECT_DOUBLE_EQ(delta->busy_fraction, 0.25);
  EXPECT_EQ(delta->interval_ns, 2'000'000'000);

  EXPECT_FALSE(disk_io_delta(before, after, 0).has_value());
  EXPECT_FALSE(disk_io_delta(after, before, 1'000'000'000).has_value()) << "counters went backwards";
  auto other = after;
  other.minor = 1;
  EXPECT_FALSE(disk_io_delta(before, other, 1'000'000'000).has_value()) << "different device";
}

TEST(ProcDiskstatsFixture, ReadsThroughRoot) {
  testing::TempDir dir;
  dir.write("proc/diskstats", kDiskstats);
  EXPECT_EQ(read_proc_diskstats(Root(dir.path())).size(), 3u);
}

TEST(ProcDiskstatsIntegration, ReadsThisMachine) {
  // Containers may hide block devices; the file must still parse.
  const auto stats = read_proc_diskstats(Root());
  for (const auto& disk : stats) EXPECT_FALSE(disk.name.empty());
}

}  // namespace
}  // namespace jetchar::sysfs
