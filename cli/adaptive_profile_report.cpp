#include "cli/adaptive_profile_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cli/mode_choice_text.h"

namespace jetchar::cli {

void print_profiled_mode(const sweeps::ProfiledMode& m) {
  fmt::print(stderr, "adaptive profiling: mode {} ({}/{}): {}\n", m.mode, m.measured, m.max_modes,
             m.time_s ? fmt::format("epoch {:.3f} s{}", *m.time_s,
                                    m.power_w ? fmt::format(", {:.2f} W", *m.power_w) : std::string())
                      : std::string("no OK run: left out"));
}

void print_adaptive_profile(const sweeps::AdaptiveProfileSweepResult& r, const std::filesystem::path& store_file) {
  if (r.stopped) return;
  fmt::print("adaptive profiling: {} of {} power modes profiled ({} candidates); stopped: {}\n", r.profiled, r.modes,
             r.candidates, r.stop_reason);
  fmt::print("profiling time: {} (the runs' durations{}); the study profiled about {:.0f} h per workload\n",
             sweeps::profiling_duration_text(r.profiling_s),
             r.modelled ? ", paced to the simulated board's time model: MODELLED" : "", sweeps::kStudyProfilingHours);
  if (!r.predicted) {
    fmt::print("no predictions: fewer than 3 modes gave an OK run\n");
    return;
  }
  fmt::print("predictor: time form {}{}; leave-one-out MAPE time {:.1f} %{}\n", r.time_form,
             r.power_form ? fmt::format(", power form {}", *r.power_form) : "", r.loo_time_mape_pct,
             r.loo_power_mape_pct ? fmt::format(", power {:.1f} %", *r.loo_power_mape_pct) : "");

  // The table: profiled modes first, then the predicted ones by predicted energy (the cheapest
  // first), at most 20 of those.
  std::vector<const results::StoredModePrediction*> shown;
  for (const auto& s : r.predictions) {
    if (s.profiled) shown.push_back(&s);
  }
  std::vector<const results::StoredModePrediction*> predicted;
  for (const auto& s : r.predictions) {
    if (!s.profiled) predicted.push_back(&s);
  }
  std::stable_sort(predicted.begin(), predicted.end(), [](const auto* a, const auto* b) {
    return a->energy_j.value_or(a->time_s) < b->energy_j.value_or(b->time_s);
  });
  const std::size_t predicted_shown = std::min<std::size_t>(predicted.size(), 20);
  shown.insert(shown.end(), predicted.begin(), predicted.begin() + static_cast<std::ptrdiff_t>(predicted_shown));
  fmt::print("{:<30} {:<9} {:>26} {:>24} {:>10}\n", "mode", "",
             fmt::format("epoch s [{:.0f} % interval]", 100 * r.level), "power W [interval]", "measured");
  for (const auto* s : shown) {
    const std::string power =
        s->power_w ? fmt::format("{:.2f} [{:.2f}, {:.2f}]", *s->power_w, *s->power_low_w, *s->power_high_w)
                   : std::string("-");
    fmt::print("{:<30} {:<9} {:>26} {:>24} {:>10}\n", s->mode, s->profiled ? "profiled" : "predicted",
               fmt::format("{:.3f} [{:.3f}, {:.3f}]", s->time_s, s->time_low_s, s->time_high_s), power,
               s->measured_time_s ? fmt::format("{:.3f} s", *s->measured_time_s) : std::string("-"));
  }
  if (predicted.size() > predicted_shown) {
    fmt::print("... {} more predicted modes (the lowest predicted energy shown)\n", predicted.size() - predicted_shown);
  }
  fmt::print("predictions for all {} modes stored in {} (table mode_predictions)\n", r.predictions.size(),
             store_file.string());
  if (r.choice) fmt::print("{}\n", choice_line(*r.choice));
}

}  // namespace jetchar::cli
