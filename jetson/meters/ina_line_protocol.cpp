#include "jetson/meters/ina_line_protocol.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <vector>

namespace jetchar::jetson::meters {
namespace {

template <typename T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(value)) return std::nullopt;
  }
  return value;
}

}  // namespace

bool is_ina_comment(std::string_view line) { return !line.empty() && line.front() == '#'; }

std::optional<InaLine> parse_ina_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty() || is_ina_comment(line)) return std::nullopt;
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
    if (fields.size() > 5) return std::nullopt;
  }
  if (fields.size() != 4 && fields.size() != 5) return std::nullopt;
  InaLine result;
  const auto seq = parse_number<std::uint64_t>(fields[0]);
  const auto t = parse_number<std::uint64_t>(fields[1]);
  const auto mv = parse_number<double>(fields[2]);
  const auto ma = parse_number<double>(fields[3]);
  if (!seq || !t || !mv || !ma || *mv < 0) return std::nullopt;
  result.sequence = *seq;
  result.device_time_us = *t;
  result.bus_mv = *mv;
  result.current_ma = *ma;
  if (fields.size() == 5) {
    if (fields[4] == "0") result.marker = false;
    else if (fields[4] == "1") result.marker = true;
    else return std::nullopt;
  }
  return result;
}

std::string format_ina_line(const InaLine& line) {
  std::string out =
      fmt::format("{},{},{:.2f},{:.3f}", line.sequence, line.device_time_us, line.bus_mv, line.current_ma);
  if (line.marker) out += *line.marker ? ",1" : ",0";
  out += "\r\n";
  return out;
}

}  // namespace jetchar::jetson::meters
