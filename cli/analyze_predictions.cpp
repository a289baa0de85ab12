// `jetchar analyze predictions RESULTS`: the predictions an adaptive_profile sweep stored for every
// power mode (analysis/mode_predictions.h), measured beside predicted, the predicted time-energy
// Pareto front over all of them, and the choice a sweep with an objective stored, as a table or JSON.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/mode_predictions.h"
#include "analysis/results_store_reader.h"
#include "cli/analyze_options.h"
#include "cli/mode_choice_text.h"

namespace jetchar::cli {

namespace {

using namespace jetchar::analysis;

std::vector<StoredModePrediction> load_stored_predictions(const std::string& results) {
  if (!is_results_store(results)) {
    throw std::invalid_argument(
        fmt::format("{}: predictions are stored in a results store (table mode_predictions of results.db); give the "
                    "sweep's results directory or its results.db, not an export",
                    results));
  }
  auto predictions = ResultsStoreReader(results).mode_predictions();
  if (predictions.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: no mode predictions stored; only a sweep with adaptive_profile {{ ... }} stores them "
                    "(jetchar sweep run)",
                    results));
  }
  return predictions;
}

std::string interval_text(const Interval& i, const char* format) {
  return fmt::format(fmt::runtime(format), i.value, i.low, i.high);
}

// The front column: on the predicted front, maybe on it within the intervals, off it, or "-" for a
// mode without an energy.
std::string front_mark(const PredictedFrontPoint* p) {
  if (p == nullptr) return "-";
  return p->on_front ? "yes" : p->may_be_on_front ? "maybe" : "no";
}

// --json: per sweep, every mode with its intervals and front marks, then the front's points, and
// the sweep's choice (null without an objective).
nlohmann::json predictions_json(const std::string& results, const std::vector<StoredModePrediction>& predictions,
                                const std::vector<PredictedParetoFront>& fronts,
                                const std::vector<StoredModeChoice>& choices) {
  const auto plane = front_points_by_prediction(fronts, predictions.size());
  auto doc = nlohmann::json::object({{"results", results}, {"sweeps", nlohmann::json::array()}});
  std::map<std::string, std::size_t> sweep_index;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const auto& p = predictions[i];
    auto [it, added] = sweep_index.try_emplace(p.sweep, doc["sweeps"].size());
    if (added) {
      doc["sweeps"].push_back(
          {{"sweep", p.sweep},
           {"interval_level", p.level},
           {"time_form", p.time_form},
           {"power_form", p.power_form.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.power_form)},
           {"modelled", p.modelled},
           {"modes", nlohmann::json::array()},
           {"front", nlohmann::json::array()},
           {"choice", nullptr}});
      for (const auto& c : choices) {
        if (c.sweep == p.sweep) doc["sweeps"].back()["choice"] = mode_choice_json(c);
      }
    }
    doc["sweeps"][it->second]["modes"].push_back(
        {{"mode", p.mode.label()},
         {"cpu_cores", p.mode.cpu_cores.value_or(0)},
         {"cpu_freq_khz", p.mode.cpu_freq_khz.value_or(0)},
         {"gpu_freq_khz", p.mode.gpu_freq_khz.value_or(0)},
         {"emc_freq_khz", p.mode.emc_freq_khz.value_or(0)},
         {"profiled", p.profiled},
         {"time_s", interval_json(p.time_s)},
         {"power_w", interval_json(p.power_w)},
         {"energy_j", interval_json(p.energy_j)},
         {"measured_time_s", optional_json(p.measured_time_s)},
         {"measured_power_w", optional_json(p.measured_power_w)},
         {"on_front", plane[i] != nullptr && plane[i]->on_front},
         {"may_be_on_front", plane[i] != nullptr && plane[i]->may_be_on_front}});
  }
  for (const auto& f : fronts) {
    auto& front = doc["sweeps"][sweep_index.at(f.sweep)]["front"];
    for (std::size_t i : f.front) {
      const auto& p = f.points[i];
      front.push_back(predicted_front_point_json(p, predictions[p.prediction], false));
    }
  }
  return doc;
}

// The table of one sweep's modes: a heading when the sweep starts (and the sweep's choice, when it
// had an objective), then one line per mode.
std::string predictions_table(const std::vector<StoredModePrediction>& predictions,
                              const std::vector<PredictedParetoFront>& fronts,
                              const std::vector<StoredModeChoice>& choices, std::size_t width) {
  const auto plane = front_points_by_prediction(fronts, predictions.size());
  std::string out, sweep;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const auto& p = predictions[i];
    if (i == 0 || p.sweep != sweep) {
      sweep = p.sweep;
      std::size_t modes = 0, profiled = 0;
      for (const auto& q : predictions) {
        if (q.sweep != sweep) continue;
        ++modes;
        if (q.profiled) ++profiled;
      }
      out += fmt::format("\nsweep {}: {} power modes, {} profiled, {} predicted; {:.0f} % intervals; forms {}/{}{}\n",
                         sweep, modes, profiled, modes - profiled, 100 * p.level, p.time_form,
                         p.power_form.empty() ? "-" : p.power_form,
                         p.modelled ? "; times from the simulated board's time model: MODELLED" : "");
      for (const auto& c : choices) {
        if (c.sweep == sweep) out += "  " + choice_line(c) + "\n";
      }
      out += fmt::format("  {:<{}} {:<9} {:>28} {:>10} {:>26} {:>10} {:>28} {:>5}\n", "power mode", width, "",
                         "epoch s [interval]", "measured", "power W [interval]", "measured", "energy J [interval]",
                         "front");
    }
    out += fmt::format("  {:<{}} {:<9} {:>28} {:>10} {:>26} {:>10} {:>28} {:>5}\n", p.mode.label(), width,
                       p.profiled ? "profiled" : "predicted", interval_text(p.time_s, "{:.4g} [{:.4g}, {:.4g}]"),
                       opt(p.measured_time_s), p.power_w ? interval_text(*p.power_w, "{:.4g} [{:.4g}, {:.4g}]") : "-",
                       opt(p.measured_power_w),
                       p.energy_j ? interval_text(*p.energy_j, "{:.4g} [{:.4g}, {:.4g}]") : "-", front_mark(plane[i]));
  }
  return out;
}

// Each sweep's predicted front, measured and predicted points marked.
std::string predicted_fronts_text(const std::vector<StoredModePrediction>& predictions,
                                  const std::vector<PredictedParetoFront>& fronts, std::size_t width) {
  std::string out;
  for (const auto& f : fronts) {
    std::size_t maybe = 0;
    for (const auto& p : f.points) maybe += p.may_be_on_front && !p.on_front;
    out += fmt::format(
        "\nsweep {}: predicted time-energy Pareto front over {} modes: {} on it ({} measured, {} predicted); {} more "
        "may be on it within their {:.0f} % intervals\n",
        f.sweep, f.points.size(), f.front.size(), f.measured_on_front, f.predicted_on_front, maybe, 100 * f.level);
    out += fmt::format("  {:<{}} {:<9} {:>10} {:>10} {:>24}\n", "power mode", width, "", "time_s", "energy_j",
                       "energy J interval");
    for (std::size_t i : f.front) {
      const auto& p = f.points[i];
      out +=
          fmt::format("  {:<{}} {:<9} {:>10.4g} {:>10.4g} {:>24}\n", predictions[p.prediction].mode.label(), width,
                      p.measured ? "measured" : "predicted", p.time_s, p.energy_j,
                      p.measured ? std::string("-") : fmt::format("[{:.4g}, {:.4g}]", p.energy_low_j, p.energy_high_j));
    }
  }
  return out;
}

void run_predictions(const AnalyzeOptions& o) {
  const auto predictions = load_stored_predictions(o.results);
  const auto choices = ResultsStoreReader(o.results).mode_choices();
  const auto fronts = predicted_pareto_fronts(predictions);
  if (o.json) {
    print(predictions_json(o.results, predictions, fronts, choices).dump(2) + "\n");
    return;
  }
  std::size_t width = std::string_view("power mode").size();
  for (const auto& p : predictions) width = std::max(width, p.mode.label().size());
  print(
      fmt::format("{}: predictions stored by adaptive profiling ({}); each interval at the level shown; front: on the "
                  "predicted time-energy Pareto front (measured values for profiled modes, predictions for the rest), "
                  "maybe: off it, but within its intervals of it\n",
                  o.results, kWarmEpochs) +
      predictions_table(predictions, fronts, choices, width) + predicted_fronts_text(predictions, fronts, width));
}

}  // namespace

void add_predictions_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o) {
  auto* predictions = analyze.add_subcommand(
      "predictions",
      "The predictions an adaptive_profile sweep stored for every power mode (measured beside predicted, with "
      "intervals), the predicted time-energy Pareto front over all of them, and the mode a sweep with an objective "
      "chose");
  predictions->add_option("results", o->results, "A results directory of an adaptive_profile sweep, or its results.db")
      ->required()
      ->check(CLI::ExistingPath);
  predictions->add_flag("--json", o->json, "JSON on stdout: per sweep every mode with its intervals, and the front");
  predictions->callback([o] { run_predictions(*o); });
}

}  // namespace jetchar::cli
