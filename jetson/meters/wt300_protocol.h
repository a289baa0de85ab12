// Yokogawa WT300 series (WT310/WT310E/WT33x) SCPI over RS-232: CR+LF terminated ASCII, 9600 8N1
// by default. Items are chosen with `:NUM:NORM:NUM <n>` and `:NUM:NORM:ITEM<x> <function>,<element>`;
// `:NUM:NORM:VAL?` answers one comma-separated NR3 list; `:SAMP:RATE <s>` sets the update period
// (0.1, 0.25, 0.5, 1, 2, 5 s) over which the meter averages. `NAN` means no data, `INF` over-range.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::jetson::meters {

/// Update periods the WT300 series accepts, in seconds.
inline constexpr double kWt300UpdateRatesS[] = {0.1, 0.25, 0.5, 1.0, 2.0, 5.0};

/// Parses an NR3/NR2 number ("+1.2345E+01", "12.3"); NAN/INF (and 9.91E+37 / 9.9E+37) give
/// nullopt in the value; the outer nullopt means "not a number at all".
std::optional<std::optional<double>> parse_wt300_number(std::string_view text);

/// Parses a `:NUM:NORM:VAL?` reply with exactly `items` values.
std::optional<std::vector<std::optional<double>>> parse_wt300_values(std::string_view line, std::size_t items);

/// Formats values as the meter does (NR3, NAN for missing), without the terminator.
std::string format_wt300_values(std::span<const std::optional<double>> values);

/// One SCPI program message: header mnemonics (":NUM:NORM:ITEM1" → {"NUM","NORM","ITEM1"}),
/// whether it is a query, and its argument text.
struct ScpiCommand {
  std::vector<std::string> mnemonics;
  bool query = false;
  std::string arguments;
  bool common = false;  ///< IEEE 488.2 common command (*IDN?, *RST)
};

std::optional<ScpiCommand> parse_scpi_command(std::string_view line);

/// SCPI matching: `given` (any case) matches a mnemonic whose long form is written with its
/// short form in capitals ("NUMeric") when it is the short form or the long form, optionally
/// followed by a numeric suffix when `allow_suffix`.
bool scpi_mnemonic_matches(std::string_view given, std::string_view long_form, bool allow_suffix = false);

}  // namespace jetchar::jetson::meters
