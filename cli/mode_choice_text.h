// The line naming the mode an adaptive-profiling sweep with an objective chose: `sweep run` prints
// it when the loop ends, and `analyze predictions` prints it again from the store's mode_choices,
// in the same words.
#pragma once

#include <fmt/format.h>

#include <string>

namespace jetchar::cli {

/// `Choice` is results::StoredModeChoice (what the sweep stores) or analysis::StoredModeChoice
/// (what the analysis reads back): the same row, with the same field names.
template <typename Choice>
std::string choice_line(const Choice& c) {
  if (!c.mode) {
    return fmt::format("choice: {}: no mode meets the budget at {:g} % confidence", c.budget, 100 * c.confidence);
  }
  return fmt::format(
      "choice: {} at {:g} % confidence: {} ({}), epoch {}{}; {} of {} modes eligible; expected regret {:.2f} %, "
      "P(within 1 % of the best eligible) {:.2f}",
      c.budget, 100 * c.confidence, *c.mode, c.measured ? "measured" : "predicted",
      c.time_s ? fmt::format("{:.3f} s", *c.time_s) : std::string("-"),
      c.energy_j ? fmt::format(", {:.3g} J", *c.energy_j) : std::string(), c.eligible, c.modes,
      c.expected_regret_pct.value_or(0), c.within_one_pct_probability.value_or(0));
}

}  // namespace jetchar::cli
