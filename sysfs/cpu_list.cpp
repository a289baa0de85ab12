#include "sysfs/cpu_list.h"

#include <algorithm>
#include <charconv>

#include "sysfs/error.h"

namespace jetchar::sysfs {
namespace {

int parse_cpu(std::string_view token, std::string_view text, std::string_view source) {
  int value = -1;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || value < 0) {
    throw FormatError(std::string(source), std::string(text), "a CPU list such as '0-3,6'");
  }
  return value;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text, std::string_view source) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<int> cpus;
  const std::string_view whole = text;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const size_t dash = item.find('-');
    const int first = parse_cpu(item.substr(0, dash), whole, source);
    const int last = dash == std::string_view::npos ? first : parse_cpu(item.substr(dash + 1), whole, source);
    if (last < first || last - first > 65535) {
      throw FormatError(std::string(source), std::string(whole), "ascending CPU ranges such as '0-3'");
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string text;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace jetchar::sysfs
