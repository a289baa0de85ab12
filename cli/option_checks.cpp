#include "cli/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

namespace jetchar::cli {
namespace {

// The whole text as a finite number; nullopt for anything else ("nan", "inf", "1x", "").
std::optional<double> finite_number(const std::string& text) {
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;  // from_chars refuses a leading '+'
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

CLI::Validator number_check(const std::function<bool(double)>& accepts, const std::string& valid,
                            const std::string& shown) {
  return CLI::Validator(
      [accepts, valid](std::string& text) -> std::string {
        const auto value = finite_number(text);
        if (value && accepts(*value)) return {};
        return fmt::format("'{}' is not valid; valid: {}", text, valid);
      },
      shown);
}

}  // namespace

CLI::Validator at_least(double low, const std::string& meaning) {
  return number_check([low](double v) { return v >= low; }, fmt::format("a number >= {}: {}", low, meaning),
                      fmt::format(">= {}", low));
}

CLI::Validator above(double low, const std::string& meaning) {
  return number_check([low](double v) { return v > low; }, fmt::format("a number > {}: {}", low, meaning),
                      fmt::format("> {}", low));
}

CLI::Validator between(double low, double high, const std::string& meaning) {
  return number_check([low, high](double v) { return v >= low && v <= high; },
                      fmt::format("a number from {} to {}: {}", low, high, meaning),
                      fmt::format("{} to {}", low, high));
}

CLI::Validator unsigned_integer(const std::string& meaning) {
  return CLI::Validator(
      [meaning](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!text.empty() && error == std::errc() && stop == text.data() + text.size()) return {};
        return fmt::format("'{}' is not valid; valid: an integer from 0 to {}: {}", text,
                           std::numeric_limits<std::uint64_t>::max(), meaning);
      },
      "0 or more");
}

CLI::Validator duration_seconds(const std::string& meaning) { return between(0, 1e8, meaning); }

}  // namespace jetchar::cli
