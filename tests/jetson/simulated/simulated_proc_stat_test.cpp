#include "jetson/simulated/simulated_proc_stat.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "sysfs/error.h"
#include "sysfs/proc_stat.h"

namespace jetchar::jetson {
namespace {

// Four CPUs as a kernel prints them (fs/proc/stat.c show_stat), with the lines after the CPUs.
constexpr const char* kCaptured =
    "cpu  400 4 200 40000 40 0 8 0 0 0\n"
    "cpu0 100 1 50 10000 10 0 2 0 0 0\n"
    "cpu1 100 1 50 10000 10 0 2 0 0 0\n"
    "cpu2 100 1 50 10000 10 0 2 0 0 0\n"
    "cpu3 100 1 50 10000 10 0 2 0 0 0\n"
    "intr 123456 0 0 0\n"
    "ctxt 98765\n"
    "btime 1700000000\n"
    "processes 4321\n"
    "procs_running 1\n"
    "procs_blocked 0\n"
    "softirq 111 1 2 3 4 5 6 7 8 9 66\n";

// docs/kernel-formats.md, `proc-stat`.
const std::regex kProcStatFormat(
    "cpu  [0-9]+( [0-9]+){9}\n(cpu[0-9]+( [0-9]+){10}\n)+intr( [0-9]+)+\nctxt [0-9]+\nbtime [0-9]+\nprocesses "
    "[0-9]+\nprocs_running [0-9]+\nprocs_blocked [0-9]+\nsoftirq( [0-9]+){11}\n");

TEST(SimulatedProcStat, UnchangedCountersPrintAsCaptured) {
  const auto times = cpu_times_from_text(kCaptured);
  EXPECT_EQ(times.cpus.size(), 4u);
  EXPECT_EQ(format_proc_stat(times, {0, 1, 2, 3}, kCaptured), kCaptured);
}

TEST(SimulatedProcStat, EveryOnlineCpuAdvancesAtTheModelsLoadInTheKernelsFormat) {
  auto times = cpu_times_from_text(kCaptured);
  const auto before = sysfs::parse_proc_stat(format_proc_stat(times, {0, 1, 2, 3}, kCaptured));
  advance_cpu_times(times, {0, 1, 2, 3}, 2.0, 0.3);  // 200 ticks per CPU, 30 % busy
  const std::string text = format_proc_stat(times, {0, 1, 2, 3}, kCaptured);
  EXPECT_TRUE(std::regex_match(text, kProcStatFormat)) << text;
  const auto after = sysfs::parse_proc_stat(text);
  for (const auto& [cpu, times_after] : after.cpus) {
    const auto& times_before = before.cpus.at(cpu);
    EXPECT_EQ(times_after.total_ticks() - times_before.total_ticks(), 200u) << cpu;
    EXPECT_NEAR(*sysfs::busy_fraction(times_before, times_after), 0.3, 0.01) << cpu;
    EXPECT_GT(times_after.user_ticks - times_before.user_ticks, times_after.system_ticks - times_before.system_ticks);
    EXPECT_EQ(times_after.iowait_ticks, times_before.iowait_ticks);  // what the model does not drive stands
  }
  EXPECT_NEAR(*sysfs::busy_fraction(before.all, after.all), 0.3, 0.01);
  EXPECT_EQ(after.all.total_ticks() - before.all.total_ticks(), 800u);
  // The lines after the CPU lines are kept as they were.
  EXPECT_NE(text.find("ctxt 98765\nbtime 1700000000\n"), std::string::npos);
}

TEST(SimulatedProcStat, ShortIntervalsAddUpAndIdleIsIdle) {
  auto times = cpu_times_from_text(kCaptured);
  const auto before = sysfs::parse_proc_stat(kCaptured);
  // A hundred refreshes of 10 ms: each under a tick, together one second of ticks.
  for (int i = 0; i < 100; ++i) advance_cpu_times(times, {0, 1, 2, 3}, 0.01, 0.0);
  const auto after = sysfs::parse_proc_stat(format_proc_stat(times, {0, 1, 2, 3}, kCaptured));
  EXPECT_NEAR(static_cast<double>(after.cpus.at(0).total_ticks() - before.cpus.at(0).total_ticks()), 100.0, 1.0);
  EXPECT_EQ(*sysfs::busy_fraction(before.all, after.all), 0.0);
}

// show_stat: a line per online CPU only, the aggregate over every possible CPU, so an offline
// CPU's counters stand still, still counted, and go on from there when it is back.
TEST(SimulatedProcStat, AnOfflineCpuLosesItsLineAndStandsStill) {
  auto times = cpu_times_from_text(kCaptured);
  advance_cpu_times(times, {0, 1}, 1.0, 1.0);
  const std::string text = format_proc_stat(times, {0, 1}, kCaptured);
  EXPECT_TRUE(std::regex_match(text, kProcStatFormat)) << text;
  const auto two = sysfs::parse_proc_stat(text);
  EXPECT_EQ(two.cpus.size(), 2u);
  EXPECT_EQ(two.all.total_ticks() - sysfs::parse_proc_stat(kCaptured).all.total_ticks(), 200u);
  advance_cpu_times(times, {0, 1, 2, 3}, 1.0, 0.0);
  const auto four = sysfs::parse_proc_stat(format_proc_stat(times, {0, 1, 2, 3}, kCaptured));
  EXPECT_EQ(four.cpus.at(3).total_ticks() - sysfs::parse_proc_stat(kCaptured).cpus.at(3).total_ticks(), 100u);
  // A CPU the capture never listed starts at zero.
  const auto five = sysfs::parse_proc_stat(format_proc_stat(times, {0, 1, 2, 3, 4}, kCaptured));
  EXPECT_EQ(five.cpus.at(4).total_ticks(), 0u);
}

TEST(SimulatedProcStat, TheCountersSurviveTheirJsonAndAMalformedLineIsNamed) {
  auto times = cpu_times_from_text(kCaptured);
  advance_cpu_times(times, {0, 1, 2, 3}, 0.123, 0.456);
  const auto back = cpu_times_from_json(nlohmann::json::parse(to_json(times).dump()));
  EXPECT_EQ(back.all, times.all);
  EXPECT_EQ(back.cpus, times.cpus);
  EXPECT_THROW(cpu_times_from_text("cpu  1 2 x\n"), sysfs::FormatError);
  EXPECT_THROW(cpu_times_from_text("cpuA 1 2 3\n"), sysfs::FormatError);
}

}  // namespace
}  // namespace jetchar::jetson
