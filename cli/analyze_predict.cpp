// `jetchar analyze predict RESULTS --modes FILE`: epoch time, power and energy predicted for every
// power mode of a modes file from the measured ones (analysis/mode_group_predictions.h computes
// them), as CSV or JSON on stdout with notes on stderr.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/cross_validation.h"
#include "analysis/mode_group_predictions.h"
#include "analysis/modes_file.h"
#include "analysis/reference_model.h"
#include "analysis/transfer_predictor.h"
#include "cli/analyze_options.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"

namespace jetchar::cli {

namespace {

using namespace jetchar::analysis;

// "axis=value axis=value": a group's other axes, as the CSV's axes column and the notes name them.
// The axes that tell the group from the others (the CSV's; the JSON names every axis).
std::string axes_text(const ModeGroup& g) {
  std::string axes;
  for (const auto& [axis, value] : g.axes) {
    if (g.shown_axes.contains(axis)) axes += (axes.empty() ? "" : " ") + axis + "=" + value;
  }
  return axes;
}

// What a group's time and energy are: "epoch" (time and energy of a warm epoch) or, for inference,
// "query_p99" (that latency of a query, seconds, and the energy per query).
std::string measure_of(const ModeGroup& g) {
  return g.query_latency ? fmt::format("query_{}", to_string(*g.query_latency)) : "epoch";
}

// The reference of `predict --reference`: one workload of that results file (the one there is, or
// --reference-workload), at one setting of the other axes, its modes with all four knobs.
ReferenceModel load_reference(const AnalyzeOptions& o) {
  const auto groups = mode_groups(load_points(o.reference));
  if (groups.empty()) {
    throw std::invalid_argument(
        fmt::format("--reference {}: no configuration has all four knobs (cpu_cores, cpu_freq, gpu_freq, emc_freq); "
                    "a reference is a workload measured on many power modes",
                    o.reference));
  }
  std::set<std::string> names;
  for (const auto& g : groups) names.insert(g.workload);
  std::string listed;
  for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
  std::string workload = o.reference_workload;
  if (workload.empty()) {
    if (names.size() > 1) {
      throw std::invalid_argument(fmt::format(
          "--reference {} holds several workloads ({}); choose one with --reference-workload", o.reference, listed));
    }
    workload = *names.begin();
  } else if (names.count(workload) == 0) {
    throw std::invalid_argument(fmt::format("--reference-workload '{}' is not a workload of {}; its workloads: {}",
                                            workload, o.reference, listed));
  }
  std::vector<const ModeGroup*> settings;
  for (const auto& g : groups) {
    if (g.workload == workload) settings.push_back(&g);
  }
  if (settings.size() > 1) {
    std::string labels;
    for (const ModeGroup* g : settings) labels += (labels.empty() ? "" : "; ") + g->label();
    throw std::invalid_argument(fmt::format(
        "--reference {}: workload '{}' was measured at {} settings of the other axes ({}); a reference is one setting",
        o.reference, workload, settings.size(), labels));
  }
  try {
    return ReferenceModel::fit(settings.front()->points);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("--reference {}: {}", o.reference, e.what()));
  }
}

nlohmann::json reference_json(const AnalyzeOptions& o, const ReferenceModel& r, ClockMapping mapping) {
  return {{"results", o.reference},
          {"workload", r.workload()},
          {"modes", r.modes()},
          {"time_form", std::string(to_string(r.time_model().form()))},
          {"time_mape", r.time_mape()},
          {"power_mape", optional_json(r.power_mape())},
          {"clock_mapping", std::string(to_string(mapping))}};
}

// The CSV: one line per group and mode asked for.
std::string predictions_csv(const std::vector<GroupPredictions>& predicted) {
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
  std::string out =
      "workload,axes,mode,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz,model,profiled,predicted_time_s,"
      "predicted_power_w,predicted_energy_j,time_low_s,time_high_s,power_low_w,power_high_w,energy_low_j,"
      "energy_high_j,fitted_on,measured_time_s,measured_power_w,measured_energy_j,measure\n";
  for (const GroupPredictions& g : predicted) {
    const std::string axes = axes_text(*g.group);
    for (const PredictedMode& p : g.modes) {
      const PowerMode& m = p.mode;
      // time, power, energy: empty where the mode was not measured
      const std::string measured = p.measured ? fmt::format("{:.6g},{},{}", p.measured->time_s,
                                                            num(p.measured->power_w), num(p.measured->energy_j))
                                              : ",,";
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.6g},{},{},{},{},{},{},{},{},{},{},{}\n", g.group->workload,
                         axes, m.name, *m.cpu_cores, *m.cpu_freq_khz, *m.gpu_freq_khz, *m.emc_freq_khz, g.model,
                         g.profiled, *p.time_s.value, num(p.power_w.value), num(p.energy_j.value), num(p.time_s.low),
                         num(p.time_s.high), num(p.power_w.low), num(p.power_w.high), num(p.energy_j.low),
                         num(p.energy_j.high), p.fitted_on ? 1 : 0, measured, measure_of(*g.group));
    }
  }
  return out;
}

nlohmann::json value_json(const PredictedValue& v) {
  nlohmann::json j = {{"value", optional_json(v.value)}};
  if (v.low) j["low"] = *v.low, j["high"] = *v.high;
  return j;
}

// --json: every prediction with its interval, then per group the held-out MAPE and (`suggest`)
// the modes to profile next.
nlohmann::json predictions_document(const std::vector<GroupPredictions>& predicted, bool suggest, nlohmann::json doc) {
  doc["predictions"] = nlohmann::json::array();
  for (const GroupPredictions& g : predicted) {
    for (const PredictedMode& p : g.modes) {
      nlohmann::json measured;  // null where the mode was not measured
      if (p.measured) {
        measured = {{"time_s", p.measured->time_s},
                    {"power_w", optional_json(p.measured->power_w)},
                    {"energy_j", optional_json(p.measured->energy_j)}};
      }
      nlohmann::json beyond = nlohmann::json::array();
      for (const std::string_view knob : p.extrapolates) beyond.push_back(knob);
      nlohmann::json row = {{"workload", g.group->workload}, {"axes", axes_json(g.group->axes)}};
      row.update(knobs_json(p.mode));
      row.update({{"model", g.model},
                  {"measure", measure_of(*g.group)},
                  {"profiled", g.profiled},
                  {"time_s", value_json(p.time_s)},
                  {"power_w", value_json(p.power_w)},
                  {"energy_j", value_json(p.energy_j)},
                  {"extrapolates", beyond},
                  {"fitted_on", p.fitted_on},
                  {"measured", measured}});
      doc["predictions"].push_back(std::move(row));
    }
  }
  for (const GroupPredictions& g : predicted) {
    if (g.held_out_time.modes == 0) continue;
    doc["held_out"].push_back({{"workload", g.group->workload},
                               {"axes", axes_json(g.group->axes)},
                               {"modes", g.held_out_time.modes},
                               {"time_mape_pct", optional_json(g.held_out_time.pct())},
                               {"power_mape_pct", optional_json(g.held_out_power.pct())},
                               {"energy_mape_pct", optional_json(g.held_out_energy.pct())}});
  }
  if (suggest) {
    for (const GroupPredictions& g : predicted) {
      nlohmann::json next = nlohmann::json::array();
      for (const PowerMode* m : g.profile_next) next.push_back(knobs_json(*m));
      doc["profile_next"].push_back(
          {{"workload", g.group->workload}, {"axes", axes_json(g.group->axes)}, {"modes", next}});
    }
  }
  return doc;
}

// The notes on stderr, per group: the held-out MAPE, the modes to profile next, the knobs
// predictions extrapolate on.
std::string predictions_notes(const std::vector<GroupPredictions>& predicted, std::size_t mode_count, bool suggest) {
  std::string out;
  for (const GroupPredictions& g : predicted) {
    const std::string axes = axes_text(*g.group);
    const std::string group = g.group->workload + (axes.empty() ? "" : " (" + axes + ")");
    if (g.held_out_time.modes > 0) {
      auto pct = [](const HeldOutMape& m) { return m.modes ? fmt::format("{:.2f} %", *m.pct()) : std::string("-"); };
      out += fmt::format("held out: {}: {} measured modes the fit left out: MAPE time {}, power {}, energy {}\n", group,
                         g.held_out_time.modes, pct(g.held_out_time), pct(g.held_out_power), pct(g.held_out_energy));
    } else {
      out += fmt::format(
          "held out: {}: none: the fit used every measured mode of --modes, so no measured mode checks it (--profile N "
          "fits on N and scores the rest; fit's leave-one-out MAPE scores every mode)\n",
          group);
    }
    if (suggest) {
      std::string names;
      for (const PowerMode* m : g.profile_next) names += (names.empty() ? "" : ", ") + m->label();
      out += fmt::format("profile next: {}: {} (where a measurement would most narrow the predictions)\n", group,
                         names.empty() ? "no mode left" : names);
    }
    for (const auto& e : g.extrapolated) {
      out += fmt::format(
          "extrapolated: {}: {} of {} modes lie outside the profiled {} range {}..{}; cross-validation on the "
          "profiled modes does not check predictions there\n",
          group, e.modes, mode_count, e.range.knob, e.range.low, e.range.high);
    }
  }
  return out;
}

void run_predict(const AnalyzeOptions& o) {
  GroupPredictionRequest request;
  request.automatic = with_auto(o.model);  // "all" is fit's default: predict has one model
  if (!request.automatic) request.kind = parse_model_kind(o.model);
  if (!o.reference.empty() && !request.automatic) {
    throw UsageError(
        fmt::format("--reference adapts the auto model; --model {} is a fixed model: leave --model out", o.model));
  }
  if (o.suggest && (!request.automatic || !o.reference.empty())) {
    throw UsageError(
        "--suggest asks the auto model's left-out fits where they disagree: leave --model and --reference out");
  }
  const auto modes = load_modes(o.modes);
  request.mapping = parse_clock_mapping(o.clock_mapping);
  std::optional<ReferenceModel> reference;
  if (!o.reference.empty()) reference = load_reference(o);
  const auto groups = load_mode_groups(o.results, o.latency);
  // The CSV stays plain (no comment line for a parser to trip on); the notes go to stderr.
  const auto queries = [](const ModeGroup& g) { return g.query_latency.has_value(); };
  if (!std::all_of(groups.begin(), groups.end(), queries)) {
    std::fprintf(stderr, "predicted: warm epoch time, power and energy, fitted to the measured %s; %s\n", kWarmEpochs,
                 kResolvedKnobs);
  }
  if (std::any_of(groups.begin(), groups.end(), queries)) {
    std::fprintf(
        stderr, "%s\n",
        fmt::format(
            "measure query_{}: predicted {} latency of a query (time columns, s), power and energy "
            "per query (energy columns, J/query){}; {}; {}",
            o.latency, o.latency,
            o.latency == "avg" ? "" : ", these two from a fit on the mean latency (power x mean latency = J/query)",
            kQueryMedians, kResolvedKnobs)
            .c_str());
  }
  if (reference) {
    std::fprintf(stderr, "%s\n",
                 fmt::format("transfer: each workload adapts reference '{}' of {} ({} modes, time form {}, clocks {}): "
                             "one multiplier per time and power term, fitted to its own profiled modes",
                             reference->workload(), o.reference, reference->modes(),
                             to_string(reference->time_model().form()), to_string(request.mapping))
                     .c_str());
  }
  request.profile = o.profile;
  request.interval_level = o.interval_level;
  request.reference = reference ? &*reference : nullptr;
  request.suggest = o.suggest;
  const auto predicted = predict_groups(groups, modes, request);
  auto doc = nlohmann::json::object({{"epochs", kWarmEpochs}, {"knobs", kResolvedKnobs}});
  if (request.automatic) doc["interval_level"] = o.interval_level;
  if (reference) doc["reference"] = reference_json(o, *reference, request.mapping);
  const std::string notes = predictions_notes(predicted, modes.size(), o.suggest.has_value());
  std::fputs(notes.c_str(), stderr);
  print(o.json ? predictions_document(predicted, o.suggest.has_value(), std::move(doc)).dump(2) + "\n"
               : predictions_csv(predicted));
}

}  // namespace

// `analyze predict` and its options; `results` adds the RESULTS argument every subcommand takes.
void add_predict_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o,
                         const std::function<void(CLI::App*)>& results) {
  auto* predict = analyze.add_subcommand(
      "predict",
      "Predict epoch time (inference: a query's latency), power and energy (per query) for power modes never run, "
      "with intervals (CSV or JSON on stdout)");
  results(predict);
  predict
      ->add_option("--modes", o->modes,
                   "CSV of modes: mode,cpu_cores and the three clocks, each in the unit its column name ends in, e.g. "
                   "mode,cpu_cores,cpu_freq_mhz,gpu_freq_mhz,emc_freq_mhz (examples/agx-orin-transfer-modes.csv); "
                   "_hz, _khz or _mhz. The output gives kHz (cpu_freq_khz, ...)")
      ->required()
      ->check(CLI::ExistingFile);
  predict->add_option("--model", o->model,
                      "auto (default: physical forms or power laws chosen by cross-validation, with intervals), "
                      "linear, inverse, resource or nnls");
  predict->add_option("--level", o->interval_level, "Coverage of the auto model's intervals")
      ->capture_default_str()
      ->check(between(0.5, 0.99, "interval level"));
  predict->add_flag("--json", o->json,
                    "JSON on stdout instead of CSV: each prediction with its interval, the knobs on which it lies "
                    "outside the profiled modes' range (extrapolates; stderr names them per workload either way) and "
                    "the mode's measured values where the results hold it (measured, fitted_on)");
  predict
      ->add_option("--profile", o->profile,
                   "Fit on N of the measured modes only (for auto, those an adaptive_profile sweep of N modes "
                   "would profile, refitting after each of its last quarter's picks; "
                   "with --reference a space-filling design; the spread design otherwise); the measured modes of "
                   "--modes the fit left out give the held-out MAPE (stderr, and held_out in --json)")
      ->check(between(1, 1000000, "power modes"));
  predict
      ->add_option(
          "--suggest", o->suggest,
          "Also name N modes of --modes to profile next, per workload: where a measurement would most narrow the "
          "auto model's predictions, each chosen as if the ones before it were measured (stderr, and profile_next in "
          "--json)")
      ->check(between(1, 1000, "power modes"));
  auto* reference =
      predict
          ->add_option("--reference", o->reference,
                       "Adapt a reference workload measured on many modes of the board kind (results directory, "
                       "results.db, CSV or JSONL) to each workload's few modes: one multiplier per time and power "
                       "term (analysis/README.md, Transfer)")
          ->check(CLI::ExistingPath);
  predict
      ->add_option("--reference-workload", o->reference_workload,
                   "The reference's workload, when its results hold several")
      ->needs(reference);
  predict
      ->add_option("--clock-mapping", o->clock_mapping,
                   "Another board kind's clocks onto the reference's: absolute (a GHz is a GHz) or normalised (each "
                   "clock's range onto the reference's, log-linear)")
      ->capture_default_str()
      ->check(CLI::IsMember({"absolute", "normalised"}))
      ->needs(reference);
  add_examples(
      *predict,
      "Examples (a reference workload measured on 12 modes, a new one on 4, every mode of a list predicted):\n"
      "  jetchar sweep run examples/sim-agx-orin-transfer-reference.textproto\n"
      "  jetchar sweep run examples/sim-agx-orin-transfer-new.textproto\n"
      "  jetchar analyze predict results/sim-agx-orin-transfer-new --modes examples/agx-orin-transfer-modes.csv "
      "--reference results/sim-agx-orin-transfer-reference");
  predict->callback([o] { run_predict(*o); });
}

}  // namespace jetchar::cli
