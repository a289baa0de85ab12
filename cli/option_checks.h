// Checks for numeric options. CLI11's own range validators let NaN through (every comparison with
// it is false: `--duration nan` then never ends) and print DBL_MAX as a 309-digit bound; these
// refuse non-finite values and say what is valid in words ("'-1' is not valid; valid: a number
// >= 0: seconds, 0 = until Ctrl-C"). A refused value is bad input (exit code 3).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace jetchar::cli {

/// A finite number >= `low`; `meaning` says what the number is ("seconds, 0 = until Ctrl-C").
CLI::Validator at_least(double low, const std::string& meaning);
/// A finite number > `low`.
CLI::Validator above(double low, const std::string& meaning);
/// A finite number in [low, high].
CLI::Validator between(double low, double high, const std::string& meaning);
/// An unsigned integer written without a sign (a seed): "-1" would wrap to 18446744073709551615.
CLI::Validator unsigned_integer(const std::string& meaning);
/// Seconds from 0 to 1e8 (three years): a longer wait overflows the clock's nanoseconds and
/// would end at once instead of never.
CLI::Validator duration_seconds(const std::string& meaning);

}  // namespace jetchar::cli
