#include "jetson/meters/watts_up_protocol.h"

#include <fmt/format.h>

#include <charconv>

namespace jetchar::jetson::meters {
namespace {

constexpr std::size_t kMaxPacket = 512;  // a real record is < 120 bytes

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<WattsUpPacket> parse_watts_up_packet(std::string_view packet) {
  if (packet.size() < 2 || packet.front() != '#' || packet.back() != ';') return std::nullopt;
  std::string body;
  for (char c : packet.substr(1, packet.size() - 2)) {
    if (c == '\r' || c == '\n' || c == '\t') continue;
    if (c == '#' || c == ';') return std::nullopt;
    body.push_back(c);
  }
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = body.find(',', start);
    fields.push_back(body.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (fields.size() < 3 || fields[0].size() != 1 || fields[1].empty()) return std::nullopt;
  const auto count = parse_integer(fields[2]);
  if (!count || *count < 0 || static_cast<std::size_t>(*count) != fields.size() - 3) return std::nullopt;
  WattsUpPacket result;
  result.command = fields[0][0];
  result.subcommand = fields[1];
  result.args.assign(fields.begin() + 3, fields.end());
  return result;
}

std::optional<WattsUpRecord> decode_watts_up_record(const WattsUpPacket& packet) {
  if (packet.command != 'd' || packet.args.size() < 3) return std::nullopt;
  const auto field = [&](std::size_t i, double scale) -> std::optional<std::optional<double>> {
    const std::string& text = packet.args[i];
    if (text == "_") return std::optional<double>();
    const auto value = parse_integer(text);
    if (!value || *value < 0) return std::nullopt;  // malformed: reject the whole record
    return std::optional<double>(static_cast<double>(*value) * scale);
  };
  const auto w = field(0, 100.0);  // deci-watts → mW
  const auto v = field(1, 100.0);  // deci-volts → mV
  const auto a = field(2, 1.0);    // milliamps
  if (!w || !v || !a) return std::nullopt;
  return WattsUpRecord{*w, *v, *a};
}

std::string watts_up_start_logging_command(int interval_s) { return fmt::format("#L,W,3,E,,{};", interval_s); }

std::string format_watts_up_record(double power_mw, double voltage_mv, double current_ma) {
  std::string record =
      fmt::format("#d,-,18,{},{},{}", static_cast<long long>(power_mw / 100.0 + 0.5),
                  static_cast<long long>(voltage_mv / 100.0 + 0.5), static_cast<long long>(current_ma + 0.5));
  for (int i = 0; i < 15; ++i) record += ",_";
  record += ";\r\n";
  return record;
}

void WattsUpPacketSplitter::feed(std::string_view bytes, std::vector<std::string>& out) {
  for (char c : bytes) {
    if (c == '#') {
      if (in_packet_) {
        stats_.garbage_bytes += current_.size();
        ++stats_.bad_frames;
      }
      current_.assign(1, c);
      in_packet_ = true;
      outside_ = 0;
      continue;
    }
    if (!in_packet_) {
      // "All characters outside of a packet are ignored" (Serial Data Format, section I.3): the
      // CR LF a meter sends after each record and its power-on banner are not damage. Only a ';'
      // out here is: the end of a packet whose '#' was lost, with the bytes since the last line
      // break as what is left of it.
      if (c == ';') {
        stats_.garbage_bytes += outside_ + 1;
        ++stats_.bad_frames;
        outside_ = 0;
      } else if (c == '\r' || c == '\n') {
        outside_ = 0;
      } else {
        ++outside_;
      }
      continue;
    }
    current_.push_back(c);
    if (c == ';') {
      out.push_back(std::move(current_));
      current_.clear();
      in_packet_ = false;
    } else if (current_.size() > kMaxPacket) {
      stats_.garbage_bytes += current_.size();
      ++stats_.bad_frames;
      current_.clear();
      in_packet_ = false;
    }
  }
}

}  // namespace jetchar::jetson::meters
