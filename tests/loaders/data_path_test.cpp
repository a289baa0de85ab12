#include "loaders/data_path.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sysfs/page_cache.h"
#include "tests/support/disk_scratch_dir.h"
#include "tests/support/temp_dir.h"

namespace jetchar::loaders {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using DataDir = jetchar::testing::DiskScratchDir;
using jetchar::testing::read_all;

// The real page cache of this machine: evicted files are not resident before the epoch and are
// after the epoch has read them; the epoch after that starts resident.
TEST(DataPathMonitor, ResidencyBeforeAndAfterEachEpochOnRealFiles) {
  DataDir dir;
  if (dir.on_tmpfs()) GTEST_SKIP() << dir.path() << " is on tmpfs, whose pages cannot be evicted";
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::vector<fs::path> files{dir.write("a.bin", 512 * page), dir.write("b.bin", 256 * page + 10)};
  sysfs::evict_files(files);
  DataPathMonitor monitor(sysfs::Root("/"), files, dir.path());

  monitor.begin_epoch();
  for (const auto& file : files) read_all(file);
  const DataPathEpoch cold = monitor.end_epoch();
  ASSERT_TRUE(cold.residency_before.has_value());
  ASSERT_TRUE(cold.residency_after.has_value());
  EXPECT_LT(*cold.residency_before, 0.5) << "just evicted";
  EXPECT_GT(*cold.residency_after, 0.95) << "every page was just read";
  EXPECT_LE(*cold.residency_after, 1.0);

  monitor.begin_epoch();
  const DataPathEpoch warm = monitor.end_epoch();
  EXPECT_GT(warm.residency_before.value_or(0), 0.95);

  // The block device and its I/O: pages that were not resident had to come from the device. Only
  // where the files are on a block device this machine lists in /proc/diskstats.
  if (!monitor.storage() || cold.device.empty()) GTEST_SKIP() << "no block device for " << dir.path();
  EXPECT_NE(monitor.medium_name(), "unknown") << monitor.storage()->label;
  ASSERT_TRUE(cold.io.has_value()) << "no /proc/diskstats entry for " << cold.device;
  const double missing_bytes = (1.0 - *cold.residency_before) * static_cast<double>(768 * page + 10);
  EXPECT_GE(static_cast<double>(cold.io->bytes_read), 0.9 * missing_bytes)
      << cold.device << ": read " << cold.io->bytes_read << " bytes";
  EXPECT_GT(cold.io->interval_ns, 0);
}

// A fixture kernel tree: the data directory's real device number maps to an NVMe partition, and
// /proc/diskstats is rewritten between begin and end as the kernel's counters would move.
class FixtureKernel {
 public:
  explicit FixtureKernel(const fs::path& data) {
    struct stat status {};
    if (::stat(data.c_str(), &status) != 0) throw std::runtime_error("stat " + data.string());
    number_ = std::to_string(major(status.st_dev)) + ":" + std::to_string(minor(status.st_dev));
    const std::string disk = "sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1";
    dir_.write(disk + "/dev", "259:0\n");
    dir_.write(disk + "/queue/rotational", "0\n");
    dir_.write(disk + "/nvme0n1p2/dev", number_ + "\n");
    dir_.write(disk + "/nvme0n1p2/partition", "2\n");
    fs::create_directories(dir_.path() / "sys/dev/block");
    fs::create_symlink("../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2",
                       dir_.path() / "sys/dev/block" / number_);
  }
  const fs::path& path() const { return dir_.path(); }
  // One /proc/diskstats with the partition's counters (the kernel's 17-field format).
  void diskstats(std::uint64_t reads, std::uint64_t sectors_read, std::uint64_t writes, std::uint64_t sectors_written,
                 std::uint64_t io_ms) const {
    const std::string major_minor = number_.substr(0, number_.find(':')) + " " + number_.substr(number_.find(':') + 1);
    dir_.write("proc/diskstats",
               "   7       0 loop0 10 0 80 1 0 0 0 0 0 1 1 0 0 0 0\n"
               " 259       0 nvme0n1 999 0 999 9 999 0 999 9 0 9 9 0 0 0 0\n " +
                   major_minor + " nvme0n1p2 " + std::to_string(reads) + " 3 " + std::to_string(sectors_read) + " 40 " +
                   std::to_string(writes) + " 1 " + std::to_string(sectors_written) + " 20 0 " + std::to_string(io_ms) +
                   " 60 0 0 0 0\n");
  }

 private:
  testing::TempDir dir_;
  std::string number_;
};

TEST(DataPathMonitorFixture, DiskIoPerEpochFromDiskstatsAndTheMedium) {
  testing::TempDir data;
  const fs::path file = data.write("set/x.bin", std::string(5000, 'x'));
  FixtureKernel kernel(data.path());
  kernel.diskstats(100, 2000, 50, 800, 1000);
  DataPathMonitor monitor(sysfs::Root(kernel.path()), {file}, data.path() / "set");
  ASSERT_TRUE(monitor.storage().has_value());
  EXPECT_EQ(monitor.medium_name(), "nvme");
  EXPECT_EQ(monitor.storage()->disk_name, "nvme0n1");

  monitor.begin_epoch();
  std::this_thread::sleep_for(50ms);
  kernel.diskstats(100 + 40, 2000 + 8192, 50 + 2, 800 + 16, 1000 + 20);  // 40 reads of 4 MiB in all
  const DataPathEpoch epoch = monitor.end_epoch();
  EXPECT_EQ(epoch.device, "nvme0n1p2");
  ASSERT_TRUE(epoch.io.has_value());
  EXPECT_EQ(epoch.io->bytes_read, 8192U * 512U);
  EXPECT_EQ(epoch.io->reads_completed, 40U);
  EXPECT_EQ(epoch.io->bytes_written, 16U * 512U);
  EXPECT_EQ(epoch.io->writes_completed, 2U);
  const double seconds = static_cast<double>(epoch.io->interval_ns) / 1e9;
  EXPECT_GE(seconds, 0.05);
  EXPECT_NEAR(epoch.io->read_iops, 40 / seconds, 1e-6);
  EXPECT_NEAR(epoch.io->read_bytes_per_s, 8192 * 512 / seconds, 1e-3);
  EXPECT_NEAR(epoch.io->busy_fraction, std::min(1.0, 0.020 / seconds), 1e-9);
  // Residency reads the real page cache even with a fixture kernel tree.
  EXPECT_TRUE(epoch.residency_before.has_value());

  // The next epoch is a fresh delta from its own start.
  monitor.begin_epoch();
  kernel.diskstats(140 + 1, 10192 + 8, 52, 816, 1020);
  const DataPathEpoch next = monitor.end_epoch();
  ASSERT_TRUE(next.io.has_value());
  EXPECT_EQ(next.io->reads_completed, 1U);
  EXPECT_EQ(next.io->bytes_read, 8U * 512U);
}

TEST(DataPathMonitorFixture, CountersGoingBackwardsOrAMissingDeviceGiveNoIo) {
  testing::TempDir data;
  const fs::path file = data.write("x.bin", "abc");
  FixtureKernel kernel(data.path());
  kernel.diskstats(100, 2000, 50, 800, 1000);
  DataPathMonitor monitor(sysfs::Root(kernel.path()), {file}, data.path());
  monitor.begin_epoch();
  kernel.diskstats(10, 20, 5, 8, 1);  // the device was removed and re-added: counters restarted
  EXPECT_FALSE(monitor.end_epoch().io.has_value());

  monitor.begin_epoch();
  kernel.diskstats(10, 20, 5, 8, 1);
  fs::remove(kernel.path() / "proc/diskstats");
  const DataPathEpoch epoch = monitor.end_epoch();
  EXPECT_FALSE(epoch.io.has_value());
  EXPECT_EQ(epoch.device, "nvme0n1p2");

  testing::TempDir other;  // a tree with no such partition in /proc/diskstats
  other.write("proc/diskstats", "   7       0 loop0 10 0 80 1 0 0 0 0 0 1 1\n");
  fs::create_directories(other.path() / "sys/dev/block");
  DataPathMonitor unlisted(sysfs::Root(other.path()), {file}, data.path());
  EXPECT_EQ(unlisted.medium_name(), "unknown");
  unlisted.begin_epoch();
  EXPECT_FALSE(unlisted.end_epoch().io.has_value());
}

// Nothing about the storage is known, files are missing: the epoch is still recorded, with the
// unknown parts absent rather than 0 and nothing thrown.
TEST(DataPathMonitorFixture, UnknownStorageAndMissingFilesAreAbsentNotZero) {
  testing::TempDir empty_kernel;
  testing::TempDir data;
  DataPathMonitor gone(sysfs::Root(empty_kernel.path()), {data.path() / "missing.bin"}, data.path());
  EXPECT_EQ(gone.medium_name(), "unknown");
  gone.begin_epoch();
  const DataPathEpoch epoch = gone.end_epoch();
  EXPECT_FALSE(epoch.residency_before.has_value());
  EXPECT_FALSE(epoch.residency_after.has_value());
  EXPECT_FALSE(epoch.io.has_value());
  EXPECT_TRUE(epoch.device.empty());

  DataPathMonitor no_files(sysfs::Root(empty_kernel.path()), {}, {});
  no_files.begin_epoch();
  EXPECT_FALSE(no_files.end_epoch().residency_after.has_value());
  const fs::path empty_file = data.write("empty.bin", "");
  DataPathMonitor only_empty(sysfs::Root(empty_kernel.path()), {empty_file}, data.path());
  only_empty.begin_epoch();
  EXPECT_FALSE(only_empty.end_epoch().residency_before.has_value()) << "an empty file has no pages";
}

}  // namespace
}  // namespace jetchar::loaders
