#include "experiments/training/memory_monitor.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

TEST(MemoryMonitorTest, ReadsFiguresFromAFixtureRoot) {
  jetchar::testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "proc/self");
  std::ofstream(dir.path() / "proc/self/status") << "Name:\tjetchar\nVmHWM:\t  900000 kB\nVmRSS:\t  812345 kB\n";
  std::ofstream(dir.path() / "proc/meminfo") << "MemTotal:       24000000 kB\nMemFree:  100 kB\n"
                                                "MemAvailable:   12000000 kB\n";
  sysfs::Root root(dir.path());
  MemoryMonitor monitor(root, torch::kCPU, std::chrono::milliseconds(5));
  std::ofstream(dir.path() / "proc/meminfo") << "MemTotal:       24000000 kB\nMemFree:  100 kB\n"
                                                "MemAvailable:   11000000 kB\n";
  monitor.sample();
  std::ofstream(dir.path() / "proc/meminfo") << "MemTotal:       24000000 kB\nMemFree:  100 kB\n"
                                                "MemAvailable:   13000000 kB\n";
  auto peaks = monitor.stop();
  EXPECT_EQ(peaks.peak_rss_kib, 812345u);
  EXPECT_EQ(peaks.process_peak_rss_kib, 900000u);
  EXPECT_EQ(peaks.min_mem_available_kib, 11000000u);
  EXPECT_EQ(peaks.mem_total_kib, 24000000u);
  EXPECT_GE(peaks.samples, 3);
  EXPECT_EQ(monitor.stop().samples, peaks.samples);
}

TEST(MemoryMonitorTest, MissingFilesLeaveFiguresAbsent) {
  jetchar::testing::TempDir dir;
  sysfs::Root root(dir.path());
  MemoryMonitor monitor(root, torch::kCPU);
  auto peaks = monitor.stop();
  EXPECT_FALSE(peaks.peak_rss_kib);
  EXPECT_FALSE(peaks.min_mem_available_kib);
  EXPECT_TRUE(to_json(peaks)["peak_rss_kib"].is_null());
}

}  // namespace
}  // namespace jetchar::experiments
