#include "analysis/narrow_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace jetchar::analysis {

std::optional<NarrowSpread> narrow_spread(std::span<const double> values) {
  if (values.size() < 2) return std::nullopt;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  if (!(*low > 0) || !std::isfinite(*high)) return std::nullopt;
  const double percent = 100 * (*high - *low) / *low;
  if (percent >= kNarrowSpreadPercent) return std::nullopt;
  return NarrowSpread{*low, *high, percent};
}

std::string spread_note(const NarrowSpread& spread, std::string_view what, std::string_view unit) {
  // Fixed decimals from the larger bound's magnitude: 3 significant digits, more until the bounds
  // print differently (1.0001 and 1.0004 as "1.0001–1.0004", not "1.00–1.00").
  const int magnitude = static_cast<int>(std::floor(std::log10(spread.high)));
  std::string low, high;
  for (int digits = 3; digits <= 8; ++digits) {
    const int decimals = std::max(0, digits - 1 - magnitude);
    low = fmt::format("{:.{}f}", spread.low, decimals);
    high = fmt::format("{:.{}f}", spread.high, decimals);
    if (low != high || spread.low == spread.high) break;
  }
  const std::string percent = spread.percent == 0     ? std::string("0")
                              : spread.percent < 0.05 ? std::string("< 0.1")
                                                      : fmt::format("{:.1f}", spread.percent);
  return fmt::format("{} span {} % ({}–{}{}{})", what, percent, low, high, unit.empty() ? "" : " ", unit);
}

std::string narrow_spread_note(std::span<const double> values, std::string_view what, std::string_view unit) {
  const auto spread = narrow_spread(values);
  return spread ? spread_note(*spread, what, unit) : std::string();
}

}  // namespace jetchar::analysis
