#include "sysfs/proc_stat.h"

#include <array>
#include <limits>
#include <string>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_text.h"

namespace jetchar::sysfs {
namespace {

constexpr const char* kExpected =
    "'cpu[N] user nice system idle iowait irq softirq steal [guest guest_nice]' with decimal tick counts";

// Saturating difference: see busy_fraction() for why a state may go backwards.
std::uint64_t delta(std::uint64_t before, std::uint64_t after) { return after >= before ? after - before : 0; }

}  // namespace

std::uint64_t CpuTimes::total_ticks() const {
  return user_ticks + nice_ticks + system_ticks + idle_ticks + iowait_ticks + irq_ticks + softirq_ticks + steal_ticks;
}

std::uint64_t CpuTimes::idle_total_ticks() const { return idle_ticks + iowait_ticks; }

std::uint64_t CpuTimes::busy_ticks() const { return total_ticks() - idle_total_ticks(); }

ProcStat parse_proc_stat(std::string_view text, std::string_view source) {
  ProcStat stat;
  bool have_all = false;
  const auto lines = split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    if (line.substr(0, 3) != "cpu") continue;
    const size_t line_number = index + 1;
    const auto fail = [&](const std::string& expected) {
      return FormatError(std::string(source), line_number, excerpt(line), expected);
    };
    const auto fields = split_fields(line);
    const std::string_view name = fields.front();  // non-empty: the line starts with "cpu"
    std::optional<int> cpu;
    if (name != "cpu") {
      const auto number = parse_u64(name.substr(3));
      if (!number || *number > 65535) throw fail("a CPU name 'cpu' or 'cpuN' with N from 0 to 65535");
      cpu = static_cast<int>(*number);
    }
    if (fields.size() < 9) throw fail(kExpected);
    std::array<std::uint64_t, 8> values{};
    for (size_t i = 0; i < values.size(); ++i) {
      const auto value = parse_u64(fields[i + 1]);
      // Eight counters each below 2^60 cannot overflow the sums in CpuTimes.
      if (!value || *value > (std::numeric_limits<std::uint64_t>::max() >> 4)) throw fail(kExpected);
      values[i] = *value;
    }
    for (size_t i = 9; i < fields.size(); ++i) {
      if (!parse_u64(fields[i])) throw fail(kExpected);
    }
    const CpuTimes times{values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]};
    if (!cpu) {
      if (have_all) throw fail("a single aggregate 'cpu' line");
      stat.all = times;
      have_all = true;
    } else if (!stat.cpus.emplace(*cpu, times).second) {
      throw fail("each cpuN line once");
    }
  }
  if (!have_all) throw FormatError(std::string(source), excerpt(text), "an aggregate 'cpu' line");
  return stat;
}

ProcStat read_proc_stat(const Root& root) { return parse_proc_stat(read_string(root, "/proc/stat"), "/proc/stat"); }

std::optional<double> busy_fraction(const CpuTimes& before, const CpuTimes& after) {
  if (after.total_ticks() < before.total_ticks()) return std::nullopt;
  const std::uint64_t idle =
      delta(before.idle_ticks, after.idle_ticks) + delta(before.iowait_ticks, after.iowait_ticks);
  const std::uint64_t busy = delta(before.user_ticks, after.user_ticks) + delta(before.nice_ticks, after.nice_ticks) +
                             delta(before.system_ticks, after.system_ticks) + delta(before.irq_ticks, after.irq_ticks) +
                             delta(before.softirq_ticks, after.softirq_ticks) +
                             delta(before.steal_ticks, after.steal_ticks);
  if (busy + idle == 0) return std::nullopt;
  return static_cast<double>(busy) / static_cast<double>(busy + idle);
}

std::map<int, std::optional<double>> per_core_busy_fraction(const ProcStat& before, const ProcStat& after) {
  std::map<int, std::optional<double>> fractions;
  for (const auto& [cpu, times] : before.cpus) {
    const auto later = after.cpus.find(cpu);
    fractions[cpu] = later == after.cpus.end() ? std::nullopt : busy_fraction(times, later->second);
  }
  for (const auto& [cpu, times] : after.cpus) fractions.try_emplace(cpu, std::nullopt);
  return fractions;
}

}  // namespace jetchar::sysfs
