// When a chart's axis would exaggerate a small spread, and the words that say how small it is.
//
// The rule: Chart.js fits an axis that does not start at zero to its values, so any spread fills
// the axis, and 0.121 s against 0.131 s looks like 1 against 10. Where the values of such an axis
// lie within 10 % of each other (the largest at most 10 % above the smallest), the axis title and
// the chart's caption say so: "epoch times span 8.3 % (0.121–0.131 s)". 10 %, because below it the
// differences are about as large as the run-to-run variation of a Jetson sweep and the stretched
// picture misleads; above it a reader sees the spread from the tick labels. Axes that start at
// zero (bars, latency, throughput and per-sample charts) draw a spread at its true size and need
// no note; the axes that keep auto-scaling do so because a zero-based axis would pile their points
// (the Pareto plane's, whose labels must stay apart).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace jetchar::analysis {

/// The largest value at most this much above the smallest (10 %): a narrow spread.
inline constexpr double kNarrowSpreadPercent = 10;

struct NarrowSpread {
  double low = 0;
  double high = 0;
  double percent = 0;  ///< 100 × (high − low) / low
};

/// The spread of `values` when it is narrow (see above): at least two values, all positive, the
/// largest less than kNarrowSpreadPercent above the smallest. nullopt otherwise.
std::optional<NarrowSpread> narrow_spread(std::span<const double> values);

/// "epoch times span 8.3 % (0.121–0.131 s)": `what` and `unit` as given, the bounds with as many
/// digits as it takes to tell them apart (at least 3 significant).
std::string spread_note(const NarrowSpread& spread, std::string_view what, std::string_view unit);

/// spread_note() of `values` when their spread is narrow, else "".
std::string narrow_spread_note(std::span<const double> values, std::string_view what, std::string_view unit);

}  // namespace jetchar::analysis
