// Watts Up? PRO / ES serial protocol ("Serial Data Format rev 1.8", Watts Up? Communications
// Protocol, wattsupmeters.com CommunicationsProtocol090824.pdf; the v4.42 text is kept in CPAN's
// WattsUp-Daemon-0.4 doc/wattsup_spec_v442.txt): ASCII packets `#...;` at 115200 8N1, "all
// characters outside of a packet are ignored". Arg 1 command, arg 2 subcommand ('-' if none), arg 3 count of remaining
// args. External logging (`#L,W,3,E,,<interval>;`) makes the meter push one `#d,-,18,...;` record per interval; field 3
// (after splitting on ',') is W in deci-watts, 4 V in deci-volts, 5 A in milliamps; unlogged fields are `_`. W is the
// average over the interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::meters {

struct WattsUpPacket {
  char command = 0;        ///< 'd', 'h', 'v', ... (meter → host replies are lower case)
  std::string subcommand;  ///< "-" when none
  std::vector<std::string> args;
};

/// Parses one packet including its '#' and ';'. CR/LF/TAB inside are ignored, as the spec says.
/// nullopt when it is not well formed (missing delimiters, count mismatch, empty arg).
std::optional<WattsUpPacket> parse_watts_up_packet(std::string_view packet);

struct WattsUpRecord {
  std::optional<double> power_mw;
  std::optional<double> voltage_mv;
  std::optional<double> current_ma;
};

/// Decodes a `#d` data record; nullopt when the packet is not one or a value is malformed.
std::optional<WattsUpRecord> decode_watts_up_record(const WattsUpPacket& packet);

/// The external-logging command as public clients send it (empty reserved argument).
std::string watts_up_start_logging_command(int interval_s);
/// A data record as the meter sends it (the simulator's side); fields not given are `_`.
std::string format_watts_up_record(double power_mw, double voltage_mv, double current_ma);

/// Splits a byte stream into packets. Bytes outside `#...;` are ignored, as the protocol says (a
/// meter ends each record with CR LF and greets with a banner line); damage is counted as bad
/// frames and garbage bytes: a packet cut off by the next '#', one longer than any record, and a
/// ';' outside a packet (a packet whose '#' was lost, with the bytes since the last line break).
class WattsUpPacketSplitter {
 public:
  /// Appends complete packets (with delimiters) to `out`.
  void feed(std::string_view bytes, std::vector<std::string>& out);
  const ProtocolStats& stats() const { return stats_; }
  ProtocolStats& stats() { return stats_; }
  void reset() {
    current_.clear();
    in_packet_ = false;
    outside_ = 0;
  }

 private:
  std::string current_;
  bool in_packet_ = false;
  std::size_t outside_ = 0;  ///< bytes outside packets since the last line break
  ProtocolStats stats_;
};

}  // namespace jetchar::jetson::meters
