#include "sysfs/proc_stat.h"

#include <gtest/gtest.h>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

// An AGX Orin with CPUs 2 and 3 hot-unplugged (their lines are simply absent).
constexpr const char* kOrinStat =
    "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0\n"
    "cpu0 1393280 32966 572056 13343292 6140 0 12384 0 0 0\n"
    "cpu1 1335380 33057 542302 13429454 2961 0 4290 0 0 0\n"
    "cpu4 3703993 112380 985209 10031863 3844 0 4316 0 0 0\n"
    "cpu5 3699500 112293 985152 10023874 3738 0 4205 0 0 0\n"
    "intr 1462898 0 0 0 0 0 0\n"
    "ctxt 179124596\n"
    "btime 1700000000\n"
    "processes 123456\n"
    "procs_running 2\n"
    "procs_blocked 0\n"
    "softirq 54321 1 2 3 4 5 6 7 8 9 10\n";

TEST(ProcStatTest, ParsesAggregateAndPerCpuLines) {
  const ProcStat stat = parse_proc_stat(kOrinStat);
  EXPECT_EQ(stat.all.user_ticks, 10132153u);
  EXPECT_EQ(stat.all.nice_ticks, 290696u);
  EXPECT_EQ(stat.all.system_ticks, 3084719u);
  EXPECT_EQ(stat.all.idle_ticks, 46828483u);
  EXPECT_EQ(stat.all.iowait_ticks, 16683u);
  EXPECT_EQ(stat.all.irq_ticks, 0u);
  EXPECT_EQ(stat.all.softirq_ticks, 25195u);
  EXPECT_EQ(stat.all.steal_ticks, 0u);
  ASSERT_EQ(stat.cpus.size(), 4u);
  EXPECT_EQ(stat.cpus.count(2), 0u);
  EXPECT_EQ(stat.cpus.at(5).idle_ticks, 10023874u);
  EXPECT_EQ(stat.cpus.at(0).total_ticks(), 1393280u + 32966 + 572056 + 13343292 + 6140 + 12384);
  EXPECT_EQ(stat.cpus.at(0).idle_total_ticks(), 13343292u + 6140);
  EXPECT_EQ(stat.cpus.at(0).busy_ticks(), 1393280u + 32966 + 572056 + 12384);
}

TEST(ProcStatTest, AcceptsOldKernelsWithEightCounters) {
  const ProcStat stat = parse_proc_stat("cpu 1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n");
  EXPECT_EQ(stat.cpus.at(0).steal_ticks, 8u);
}

TEST(ProcStatTest, MalformedLinesNameFileAndLine) {
  const char* bad[] = {
      "cpu 1 2 3 4 5 6 7\n",     // too few counters
      "cpu 1 2 3 4 5 6 7 x\n",   // not a number
      "cpu 1 2 3 4 5 6 7 -8\n",  // negative
      "cpu 1 2 3 4 5 6 7 8\ncpux 1 2 3 4 5 6 7 8\n",
      "cpu 1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n",
      "cpu 1 2 3 4 5 6 7 8\ncpu 1 2 3 4 5 6 7 8\n",
      "cpu 1 2 3 4 5 6 7 99999999999999999999999\n",  // overflows 64 bits
      "cpu 1 2 3 4 5 6 7 8 9 z\n",                    // bad guest field
  };
  for (const char* text : bad) EXPECT_THROW(parse_proc_stat(text, "stat"), FormatError) << text;
  try {
    parse_proc_stat("intr 1\ncpu 1 2 3 4 5 6 7 8\ncpu1 1 2 3 oops 5 6 7 8\n", "/proc/stat");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.path(), "/proc/stat");
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("/proc/stat line 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("oops"), std::string::npos) << e.what();
  }
}

TEST(ProcStatTest, MissingAggregateLineIsAnError) {
  EXPECT_THROW(parse_proc_stat(""), FormatError);
  EXPECT_THROW(parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\n"), FormatError);
}

TEST(ProcStatTest, BusyFractionBetweenSnapshots) {
  const CpuTimes before{100, 0, 50, 800, 50, 0, 0, 0};
  const CpuTimes after{160, 0, 70, 900, 70, 0, 0, 0};  // busy +80, idle +120
  ASSERT_TRUE(busy_fraction(before, after).has_value());
  EXPECT_DOUBLE_EQ(*busy_fraction(before, after), 80.0 / 200.0);
  EXPECT_FALSE(busy_fraction(before, before).has_value()) << "no tick elapsed";
  EXPECT_FALSE(busy_fraction(after, before).has_value()) << "counters reset (core re-plugged)";
  // iowait may go backwards by a tick on NO_HZ kernels: counted as zero, not a failure.
  const CpuTimes quirk{160, 0, 70, 1000, 69, 0, 0, 0};
  EXPECT_DOUBLE_EQ(*busy_fraction(after, quirk), 0.0);
}

TEST(ProcStatTest, PerCoreBusyFractionReportsCoresThatCameAndWent) {
  ProcStat before = parse_proc_stat("cpu 0 0 0 0 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0\ncpu1 0 0 0 100 0 0 0 0\n");
  ProcStat after = parse_proc_stat("cpu 0 0 0 0 0 0 0 0\ncpu0 60 0 0 140 0 0 0 0\ncpu2 5 0 0 5 0 0 0 0\n");
  const auto fractions = per_core_busy_fraction(before, after);
  ASSERT_EQ(fractions.size(), 3u);
  EXPECT_DOUBLE_EQ(*fractions.at(0), 0.5);
  EXPECT_FALSE(fractions.at(1).has_value());  // went offline
  EXPECT_FALSE(fractions.at(2).has_value());  // came online
}

TEST(ProcStatFixture, ReadsThroughRoot) {
  testing::TempDir dir;
  dir.write("proc/stat", kOrinStat);
  const ProcStat stat = read_proc_stat(Root(dir.path()));
  EXPECT_EQ(stat.cpus.size(), 4u);
}

TEST(ProcStatIntegration, ReadsThisMachine) {
  const ProcStat before = read_proc_stat(Root());
  EXPECT_FALSE(before.cpus.empty());
  EXPECT_GT(before.all.total_ticks(), 0u);
  volatile double sink = 0;
  for (int i = 0; i < 20000000; ++i) sink = sink + i * 0.5;  // ~20 ms of work so at least a tick passes
  const ProcStat after = read_proc_stat(Root());
  for (const auto& [cpu, fraction] : per_core_busy_fraction(before, after)) {
    if (fraction) {
      EXPECT_GE(*fraction, 0.0) << cpu;
      EXPECT_LE(*fraction, 1.0) << cpu;
    }
  }
}

}  // namespace
}  // namespace jetchar::sysfs
