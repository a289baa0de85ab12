#include "sweeps/slurm/hostlist.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "sweeps/slurm/decimal_field.h"

namespace jetchar::sweeps {
namespace {

bool separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

[[noreturn]] void fail(std::string_view hostlist, const std::string& what) {
  constexpr std::size_t kShown = 120;
  const std::string shown =
      hostlist.size() <= kShown ? std::string(hostlist) : std::string(hostlist.substr(0, kShown)) + "...";
  throw std::invalid_argument(
      fmt::format("hostlist '{}': {}; valid: names separated by ',', each with bracketed ranges N or N-M, "
                  "e.g. b[1-3,5],c7",
                  shown, what));
}

// The names of one bracket's ranges ("1-3,5"), appended to `names`.
void expand_ranges(std::string_view hostlist, std::string_view ranges, std::size_t max_hosts,
                   std::vector<std::string>& names) {
  if (ranges.empty()) fail(hostlist, "an empty bracket '[]'");
  while (true) {
    const auto comma = ranges.find(',');
    const std::string_view range = ranges.substr(0, comma);
    const auto dash = range.find('-');
    const std::string_view lo_text = range.substr(0, dash);
    const std::string_view hi_text = dash == std::string_view::npos ? lo_text : range.substr(dash + 1);
    if (!is_decimal_field(lo_text) || !is_decimal_field(hi_text)) {
      fail(hostlist, fmt::format("range '{}' is not N or N-M with N and M numbers", range));
    }
    const auto lo = std::stoull(std::string(lo_text)), hi = std::stoull(std::string(hi_text));
    if (hi < lo) fail(hostlist, fmt::format("range '{}' ends below its start", range));
    if (hi - lo >= max_hosts || names.size() + (hi - lo + 1) > max_hosts) {
      fail(hostlist, fmt::format("more than {} names", max_hosts));
    }
    for (auto n = lo; n <= hi; ++n) names.push_back(fmt::format("{:0{}}", n, lo_text.size()));
    if (comma == std::string_view::npos) break;
    ranges = ranges.substr(comma + 1);
  }
}

// One name with its bracket groups ("r[1-2]n[1-2]"): every combination, leftmost group outermost.
void expand_name(std::string_view hostlist, std::string_view name, std::size_t max_hosts,
                 std::vector<std::string>& hosts) {
  std::vector<std::string> expanded = {""};
  std::size_t at = 0;
  while (at < name.size()) {
    const auto open = name.find('[', at);
    const std::string_view literal = name.substr(at, open == std::string_view::npos ? name.npos : open - at);
    if (literal.find(']') != std::string_view::npos) fail(hostlist, "a ']' that no '[' opened");
    for (auto& prefix : expanded) prefix += literal;
    if (open == std::string_view::npos) break;
    const auto close = name.find(']', open);
    if (close == std::string_view::npos) fail(hostlist, "a '[' that no ']' closes");
    const std::string_view ranges = name.substr(open + 1, close - open - 1);
    if (ranges.find('[') != std::string_view::npos) fail(hostlist, "a '[' inside a bracket");
    std::vector<std::string> numbers;
    expand_ranges(hostlist, ranges, max_hosts, numbers);
    if (expanded.size() * numbers.size() + hosts.size() > max_hosts) {
      fail(hostlist, fmt::format("more than {} names", max_hosts));
    }
    std::vector<std::string> next;
    next.reserve(expanded.size() * numbers.size());
    for (const auto& prefix : expanded) {
      for (const auto& number : numbers) next.push_back(prefix + number);
    }
    expanded = std::move(next);
    at = close + 1;
  }
  if (hosts.size() + expanded.size() > max_hosts) fail(hostlist, fmt::format("more than {} names", max_hosts));
  for (auto& host : expanded) hosts.push_back(std::move(host));
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view hostlist, std::size_t max_hosts) {
  std::vector<std::string> hosts;
  std::size_t start = 0;
  bool bracket = false;
  for (std::size_t i = 0; i <= hostlist.size(); ++i) {
    const bool end = i == hostlist.size();
    if (!end && hostlist[i] == '[') {
      if (bracket) fail(hostlist, "a '[' inside a bracket");
      bracket = true;
    } else if (!end && hostlist[i] == ']') {
      if (!bracket) fail(hostlist, "a ']' that no '[' opened");
      bracket = false;
    } else if (end || (!bracket && separator(hostlist[i]))) {
      if (end && bracket) fail(hostlist, "a '[' that no ']' closes");
      if (i > start) expand_name(hostlist, hostlist.substr(start, i - start), max_hosts, hosts);
      start = i + 1;
    }
  }
  if (hosts.empty()) fail(hostlist, "no name");
  return hosts;
}

}  // namespace jetchar::sweeps
