#include "sysfs/cpu_list.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

#include "sysfs/error.h"

namespace jetchar::sysfs {
namespace {

// Far above any kernel's NR_CPUS (8192); bounds the memory a corrupt list can make us use.
constexpr int kMaxCpus = 65536;
constexpr const char* kCpuListExpected = "a CPU list such as '0-3,6' or '0 1 2 3'";

int parse_cpu(std::string_view token, std::string_view text, std::string_view source) {
  int value = -1;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || value < 0) {
    throw FormatError(std::string(source), std::string(text), kCpuListExpected);
  }
  return value;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text, std::string_view source) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  // Collect ranges first and expand their union once: overlapping ranges ("0-4095,0-4095,...")
  // must not multiply the work.
  std::vector<std::pair<int, int>> ranges;
  const std::string_view whole = text;
  // Items are separated by ',' in range lists (%*pbl: cpu/online, possible, present) and by one
  // space in cpufreq's related_cpus/affected_cpus (cpufreq_show_cpus prints "0 1 2 3").
  const bool space_separated = whole.find(' ') != std::string_view::npos;
  const char separator = space_separated ? ' ' : ',';
  if (space_separated && whole.find(',') != std::string_view::npos) {
    throw FormatError(std::string(source), std::string(whole), kCpuListExpected);
  }
  while (!text.empty()) {
    const size_t at = text.find(separator);
    const std::string_view item = text.substr(0, at);
    text = at == std::string_view::npos ? std::string_view{} : text.substr(at + 1);
    if (item.empty()) throw FormatError(std::string(source), std::string(whole), kCpuListExpected);
    const size_t dash = item.find('-');
    const int first = parse_cpu(item.substr(0, dash), whole, source);
    const int last = dash == std::string_view::npos ? first : parse_cpu(item.substr(dash + 1), whole, source);
    if (last < first || last - first > kMaxCpus - 1) {
      throw FormatError(std::string(source), std::string(whole), "ascending CPU ranges such as '0-3'");
    }
    ranges.emplace_back(first, last);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<int> cpus;
  // 64-bit counters: a range may end at INT_MAX, and int would overflow past it.
  std::int64_t next = 0;  // lowest CPU not yet emitted
  for (const auto& [first, last] : ranges) {
    for (std::int64_t cpu = std::max<std::int64_t>(first, next); cpu <= last; ++cpu) {
      if (cpus.size() == static_cast<size_t>(kMaxCpus)) {
        throw FormatError(std::string(source), std::string(whole), "at most 65536 CPUs");
      }
      cpus.push_back(static_cast<int>(cpu));
    }
    next = std::max<std::int64_t>(next, std::int64_t{last} + 1);
  }
  return cpus;
}

std::string format_cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && std::int64_t{cpus[j + 1]} == std::int64_t{cpus[j]} + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace jetchar::sysfs
