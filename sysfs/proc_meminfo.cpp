#include "sysfs/proc_meminfo.h"

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_text.h"

namespace jetchar::sysfs {

std::optional<std::uint64_t> MemInfo::kb(std::string_view key) const {
  const auto it = values_kb.find(key);
  if (it == values_kb.end()) return std::nullopt;
  return it->second;
}

MemInfo parse_proc_meminfo(std::string_view text, std::string_view source) {
  MemInfo info;
  const auto lines = split_lines(text);
  for (size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = lines[index];
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const auto fail = [&](const char* expected) {
      return FormatError(std::string(source), index + 1, excerpt(line), expected);
    };
    const size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos) throw fail("'Key: <decimal>' or 'Key: <decimal> kB'");
    const std::string key(line.substr(0, colon));
    if (key.find_first_of(" \t") != std::string::npos) throw fail("a key without blanks before ':'");
    const auto fields = split_fields(line.substr(colon + 1));
    const bool has_unit = fields.size() == 2 && fields[1] == "kB";
    if (fields.empty() || fields.size() > 2 || (fields.size() == 2 && !has_unit)) {
      throw fail("'Key: <decimal>' or 'Key: <decimal> kB'");
    }
    const auto value = parse_u64(fields[0]);
    if (!value) throw fail("a non-negative decimal value");
    if (info.values_kb.count(key) != 0 || info.counts.count(key) != 0) throw fail("each key once");
    (has_unit ? info.values_kb : info.counts).emplace(key, *value);
  }
  info.mem_total_kb = info.kb("MemTotal");
  info.mem_free_kb = info.kb("MemFree");
  info.mem_available_kb = info.kb("MemAvailable");
  info.buffers_kb = info.kb("Buffers");
  info.cached_kb = info.kb("Cached");
  info.swap_total_kb = info.kb("SwapTotal");
  info.swap_free_kb = info.kb("SwapFree");
  info.nvmap_mem_used_kb = info.kb("NvMapMemUsed");
  return info;
}

MemInfo read_proc_meminfo(const Root& root) {
  return parse_proc_meminfo(read_string(root, "/proc/meminfo"), "/proc/meminfo");
}

}  // namespace jetchar::sysfs
