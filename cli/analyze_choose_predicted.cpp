// `jetchar analyze choose RESULTS --modes FILE --max-time S`: the power mode to run, chosen over
// every mode of a modes file from the measured ones and the predictions for the rest, at a stated
// confidence (analysis/predicted_choice.h computes it; this file prints it).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/mode_group_predictions.h"
#include "analysis/mode_predictions.h"
#include "analysis/modes_file.h"
#include "cli/analyze_options.h"
#include "cli/exit_code.h"

namespace jetchar::cli {

namespace {

using namespace jetchar::analysis;

std::string interval_text(const char* name, const std::optional<Interval>& v, const char* unit, bool measured) {
  if (!v) return fmt::format("  {} -", name);
  if (measured) return fmt::format("  {} {:.4g} {}", name, v->value, unit);
  return fmt::format("  {} {:.4g} {} ({:.4g}-{:.4g})", name, v->value, unit, v->low, v->high);
}

}  // namespace

void run_choose_predicted(const AnalyzeOptions& o, const Budget& budget) {
  const std::vector<PowerMode> modes = load_modes(o.modes);
  // Its budgets are training ones (--max-latency does not go with --modes).
  auto groups = load_mode_groups(o.results);
  std::erase_if(groups, [](const ModeGroup& g) { return g.query_latency.has_value(); });
  if (groups.empty()) {
    throw std::invalid_argument(fmt::format("{}: no training configuration with all four knobs", o.results));
  }
  GroupPredictionRequest request;
  request.profile = o.profile;
  request.choose = budget;
  request.confidence = o.confidence;
  request.profile_for_choice = o.objective == "choice";
  const auto predicted = predict_groups(groups, modes, request);

  const std::string header = fmt::format(
      "{}, over the {} modes of {} at {:g} % confidence: a predicted mode only where the upper end of its "
      "one-sided {:g} % interval meets the budget, a measured one where its measurement does with a noise margin; "
      "figures with their 90 % intervals",
      budget.describe(), modes.size(), o.modes, 100 * o.confidence, 100 * o.confidence);
  std::string text = fmt::format("{}\n{}\n", header, kWarmEpochs);
  nlohmann::json doc = {{"budget", budget.describe()},     {"confidence", o.confidence},
                        {"modes", modes.size()},           {"epochs", kWarmEpochs},
                        {"knobs", kResolvedKnobs},         {"choices", nlohmann::json::array()},
                        {"unmet", nlohmann::json::array()}};
  std::size_t unmet = 0;
  for (const GroupPredictions& g : predicted) {
    const std::string label = g.group->label();
    if (!g.choice) {
      ++unmet;
      text += fmt::format("{}: no mode meets the budget at {:g} % confidence ({} profiled, model {})\n", label,
                          100 * o.confidence, g.profiled, g.model);
      doc["unmet"].push_back({{"workload", g.group->workload}, {"axes", axes_json(g.group->axes)}});
      continue;
    }
    const PredictedChoice& c = *g.choice;
    const PowerMode& m = modes[c.index];
    text += fmt::format(
        "{}: {} ({}){}{}{}  {} of {} modes eligible  expected regret {:.2f} %  "
        "P(within 1 % of the best eligible) {:.2f}\n",
        label, m.label(), c.measured ? "measured" : "predicted", interval_text("time", c.time_s, "s", c.measured),
        interval_text("power", c.power_w, "W", c.measured), interval_text("energy", c.energy_j, "J", c.measured),
        c.eligible, modes.size(), c.expected_regret_pct, c.within_one_pct_probability);
    nlohmann::json row = {{"workload", g.group->workload}, {"axes", axes_json(g.group->axes)}};
    row.update(knobs_json(m));
    row.update({{"model", g.model},
                {"profiled", g.profiled},
                {"measured", c.measured},
                {"time_s", interval_json(c.time_s)},
                {"power_w", interval_json(c.power_w)},
                {"energy_j", interval_json(c.energy_j)},
                {"eligible", c.eligible},
                {"expected_regret_pct", c.expected_regret_pct},
                {"within_one_pct_probability", c.within_one_pct_probability}});
    doc["choices"].push_back(std::move(row));
  }
  print(o.json ? doc.dump(2) + "\n" : text);
  // No answer is not success: a script that picks a mode from this must see it.
  if (unmet > 0) {
    std::fflush(stdout);
    throw CommandExit(kFailure, fmt::format("error: {} of {} configuration(s) have no mode that meets the budget at "
                                            "{:g} % confidence",
                                            unmet, predicted.size(), 100 * o.confidence));
  }
}

}  // namespace jetchar::cli
