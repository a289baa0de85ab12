// The plain line protocol jetchar defines for INA219/INA226 microcontroller loggers (there is no
// standard one). 115200 8N1, one ASCII line per conversion, LF (optionally CR LF) terminated:
//
//     <seq>,<t_us>,<bus_mV>,<current_mA>[,<marker>]
//
//   seq         unsigned decimal, +1 per line (a jump tells the host lines were lost)
//   t_us        the microcontroller's clock in microseconds (unsigned; for drift estimation)
//   bus_mV      bus voltage in millivolts, decimal, fraction allowed ("5012.5")
//   current_mA  current in milliamps, decimal, fraction and sign allowed ("-3.25")
//   marker      optional 0/1: the level of a GPIO input wired to the Jetson's phase-marker line
//
// Power is bus_mV × current_mA / 1000 (mW). Lines starting with '#' are comments (firmware banner,
// configuration echo) and are ignored. Example: "1042,5210000,5012.5,812.25,1".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jetchar::jetson::meters {

struct InaLine {
  std::uint64_t sequence = 0;
  std::uint64_t device_time_us = 0;
  double bus_mv = 0;
  double current_ma = 0;
  std::optional<bool> marker;

  double power_mw() const { return bus_mv * current_ma / 1000.0; }
};

/// nullopt for malformed lines (and for comments; see is_ina_comment).
std::optional<InaLine> parse_ina_line(std::string_view line);
bool is_ina_comment(std::string_view line);
/// Formats a line as the firmware sends it, with CR LF.
std::string format_ina_line(const InaLine& line);

}  // namespace jetchar::jetson::meters
