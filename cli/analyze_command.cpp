// `jetchar analyze stats|pareto|choose|fit|predict|predictions RESULTS`: statistics, Pareto fronts,
// power-mode choice and time/energy prediction over a sweep's results: its results directory, its
// results.db, or a CSV/JSONL export (layout in analysis/README.md); `predictions` reads what an
// adaptive_profile sweep stored in its results.db (table mode_predictions).
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/adaptive_profile.h"
#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_choice.h"
#include "analysis/mode_predictions.h"
#include "analysis/mode_predictor.h"
#include "analysis/modes_file.h"
#include "analysis/pareto.h"
#include "analysis/predictor.h"
#include "analysis/profile_design.h"
#include "analysis/profiled_range.h"
#include "analysis/reference_model.h"
#include "analysis/results_file.h"
#include "analysis/results_store_reader.h"
#include "analysis/transfer_predictor.h"
#include "analysis/variability.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"

namespace {

using namespace jetchar::analysis;

struct AnalyzeOptions {
  std::string results;
  // stats
  std::string level = "all";
  int resamples = 2000;
  std::uint64_t seed = 1;
  // pareto / choose
  std::vector<std::string> per;
  std::optional<double> max_time_s, max_power_w, max_energy_j, zeus_eta, zeus_max_power_w;
  // fit / predict
  std::string model = "all";
  std::optional<std::size_t> profile;
  std::optional<std::size_t> suggest;  // predict: modes of --modes to profile next
  int folds = 5;
  bool table = false;
  bool json = false;
  double interval_level = 0.9;
  std::string modes;
  // predict --reference: adapt a reference workload's model (analysis/transfer_predictor.h)
  std::string reference, reference_workload, clock_mapping = "absolute";
};

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

// Which epochs every figure here comes from (analysis/config_point.h), the same ones `results
// list`, the sweep summary and the report use; each output says so in its header.
constexpr const char* kWarmEpochs =
    "epoch time and energy: medians over warm epochs (every epoch after epoch 0; epoch 0 only where a configuration "
    "has no other)";

// Where fit and predict take each run's knobs from (experiments/mode_readback.h).
constexpr const char* kResolvedKnobs =
    "power-mode knobs (cores, CPU/GPU/EMC MHz): as each run read them back from the board (its resolved mode), "
    "not as requested";

std::string opt(const std::optional<double>& v, const char* format = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

std::vector<ConfigPoint> load_points(const std::string& file) {
  auto records = load_results(file);
  auto points = aggregate(records);
  if (points.empty()) {
    throw std::invalid_argument(fmt::format("{}: no OK run with an epoch time; nothing to analyse", file));
  }
  return points;
}

void run_stats(const AnalyzeOptions& o) {
  auto records = load_results(o.results);
  std::map<RunStatus, std::size_t> by_status;
  for (const auto& r : records) ++by_status[r.status];
  std::string out = fmt::format("{}: {} rows", o.results, records.size());
  for (const auto& [status, count] : by_status) out += fmt::format(", {} {}", count, to_string(status));
  out += fmt::format("\nwarm epochs: every epoch after epoch 0 (epoch 0 only where a configuration has no other)\n");
  std::vector<VariabilityLevel> levels;
  if (o.level == "all")
    levels = {VariabilityLevel::kEpochs, VariabilityLevel::kRepetitions, VariabilityLevel::kDevices};
  else if (o.level == "epochs") levels = {VariabilityLevel::kEpochs};
  else if (o.level == "repetitions") levels = {VariabilityLevel::kRepetitions};
  else if (o.level == "devices") levels = {VariabilityLevel::kDevices};
  else
    throw std::invalid_argument(
        fmt::format("--level '{}' is not valid; use epochs, repetitions, devices or all", o.level));
  BootstrapOptions bootstrap{.level = 0.95, .resamples = o.resamples, .seed = o.seed};
  for (VariabilityLevel level : levels) {
    auto rows = variability(records, level, bootstrap);
    out += fmt::format("\nacross {} (warm epoch time, s; energy, J; 95% bootstrap CI of the median time)\n",
                       to_string(level));
    out += fmt::format("{:<64} {:<16} {:>4} {:>10} {:>10} {:>9} {:>7} {:>10} {:>21} {:>10} {:>7}\n", "configuration",
                       "group", "n", "median", "mean", "stddev", "cv%", "olympic", "median CI", "energy", "cv%");
    for (const auto& r : rows) {
      std::string ci =
          r.time_median_ci ? fmt::format("[{:.4g}, {:.4g}]", r.time_median_ci->low, r.time_median_ci->high) : "-";
      out += fmt::format("{:<64} {:<16} {:>4} {:>10.4g} {:>10.4g} {:>9} {:>7} {:>10} {:>21} {:>10} {:>7}\n",
                         r.key.label(), r.group, r.time_s.n, r.time_s.median, r.time_s.mean, opt(r.time_s.stddev),
                         r.time_s.cv ? fmt::format("{:.2f}", 100 * *r.time_s.cv) : "-", opt(r.time_s.olympic_mean), ci,
                         r.energy_j ? fmt::format("{:.4g}", r.energy_j->median) : "-",
                         r.energy_j && r.energy_j->cv ? fmt::format("{:.2f}", 100 * *r.energy_j->cv) : "-");
    }
  }
  print(out);
}

/// The axes that take more than one value among `points`: the only ones worth printing beside a
/// configuration (a sweep records every resolved setting, most of them constant).
std::set<std::string> varying_axes(const std::vector<ConfigPoint>& points) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& p : points) {
    for (const auto& [axis, value] : p.key.axes) values[axis].insert(value);
  }
  std::set<std::string> varying;
  for (const auto& entry : values) {
    // A named reference, not a structured binding: clang 14 (clang-tidy) cannot capture those.
    const std::string& axis = entry.first;
    if (entry.second.size() > 1 ||
        std::any_of(points.begin(), points.end(), [&](const ConfigPoint& p) { return !p.key.axes.count(axis); })) {
      varying.insert(axis);
    }
  }
  return varying;
}

std::string axes_label(const ConfigKey& key, const std::set<std::string>& shown) {
  std::string label;
  for (const auto& [axis, value] : key.axes) {
    if (shown.count(axis)) label += (label.empty() ? "" : " ") + axis + "=" + value;
  }
  return label;
}

// Every --per axis must be one the results record; a misspelt axis would otherwise group every
// configuration under "axis=" and answer a question nobody asked.
void check_per_axes(const std::vector<ConfigPoint>& points, const AnalyzeOptions& o) {
  std::set<std::string> known;
  for (const auto& p : points) {
    for (const auto& [axis, value] : p.key.axes) known.insert(axis);
  }
  for (const auto& axis : o.per) {
    if (known.count(axis)) continue;
    std::string names;
    for (const auto& name : known) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument(
        fmt::format("--per '{}' is not an axis of {}; its axes: {}", axis, o.results, names.empty() ? "none" : names));
  }
}

// A merged fleet of several board kinds gives its records the axis "board" (the board model,
// analysis/results_store_reader.h): fronts and choices are per kind, side by side, since one
// kind's power mode is not another's.
std::vector<std::string> per_with_kind(const std::vector<ConfigPoint>& points, std::vector<std::string> per) {
  const bool kinds =
      std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return p.key.axes.count("board") > 0; });
  if (kinds && std::find(per.begin(), per.end(), "board") == per.end()) per.insert(per.begin(), "board");
  return per;
}

void run_pareto(const AnalyzeOptions& o) {
  const auto points = load_points(o.results);
  check_per_axes(points, o);
  auto groups = pareto_groups(points, per_with_kind(points, o.per));
  if (groups.empty()) throw std::invalid_argument(fmt::format("{}: no configuration has an epoch energy", o.results));
  std::string out = fmt::format("{}\n", kWarmEpochs);
  for (const auto& g : groups) {
    const auto shown = varying_axes(g.points);
    out += fmt::format("{}: {} of {} configurations on the time-energy Pareto front\n", g.label(), g.front.size(),
                       g.points.size());
    // Column widths follow the labels: custom power modes are long ("custom: 12 cores CPU/GPU/EMC ...").
    std::size_t mode_width = std::string_view("power mode").size(), axes_width = std::string_view("axes").size();
    for (std::size_t i : g.front) {
      mode_width = std::max(mode_width, g.points[i].key.mode.label().size());
      axes_width = std::max(axes_width, axes_label(g.points[i].key, shown).size());
    }
    out += fmt::format("  {:<{}} {:<{}} {:>10} {:>10} {:>8}\n", "power mode", mode_width, "axes", axes_width, "time_s",
                       "energy_j", "power_w");
    for (std::size_t i : g.front) {
      const ConfigPoint& p = g.points[i];
      out += fmt::format("  {:<{}} {:<{}} {:>10.4g} {:>10.4g} {:>8}\n", p.key.mode.label(), mode_width,
                         axes_label(p.key, shown), axes_width, p.time_s, *p.energy_j, opt(p.power_w));
    }
  }
  print(out);
}

Budget budget_of(const AnalyzeOptions& o) {
  int given = !!o.max_time_s + !!o.max_power_w + !!o.max_energy_j + !!o.zeus_eta;
  if (given != 1)
    throw jetchar::cli::UsageError("give exactly one of --max-time, --max-power, --max-energy, --zeus-eta");
  if (o.zeus_max_power_w && !o.zeus_eta) throw jetchar::cli::UsageError("--max-power-w goes with --zeus-eta");
  if (o.max_time_s) return {Budget::Kind::kMaxTime, *o.max_time_s};
  if (o.max_power_w) return {Budget::Kind::kMaxPower, *o.max_power_w};
  if (o.max_energy_j) return {Budget::Kind::kMaxEnergy, *o.max_energy_j};
  return {Budget::Kind::kZeusCost, *o.zeus_eta, o.zeus_max_power_w};
}

void run_choose(const AnalyzeOptions& o) {
  Budget budget = budget_of(o);
  auto points = load_points(o.results);
  check_per_axes(points, o);
  // Group like pareto, but keep points without energy for a power budget.
  const auto per = per_with_kind(points, o.per);
  std::map<std::pair<std::string, std::map<std::string, std::string>>, std::vector<ConfigPoint>> groups;
  for (const auto& p : points) {
    std::map<std::string, std::string> fixed;
    for (const auto& axis : per) fixed[axis] = p.key.axes.count(axis) ? p.key.axes.at(axis) : "";
    groups[{p.key.workload, fixed}].push_back(p);
  }
  std::string out = fmt::format("{}\n{}\n", budget.describe(), kWarmEpochs);
  std::size_t unmet = 0;
  for (const auto& [id, members] : groups) {
    std::string label = id.first;
    for (const auto& [axis, value] : id.second) label += " " + axis + "=" + value;
    auto choice = choose(members, budget);
    if (!choice) {
      out += fmt::format("{}: no configuration meets the budget ({} measured)\n", label, members.size());
      ++unmet;
      continue;
    }
    const ConfigPoint& p = members[choice->index];
    const auto axes = axes_label(p.key, varying_axes(members));
    out += fmt::format("{}: {}{}  time {:.4g} s  energy {} J  power {} W", label, p.key.mode.label(),
                       axes.empty() ? "" : " " + axes, p.time_s, opt(p.energy_j), opt(p.power_w));
    if (budget.kind == Budget::Kind::kZeusCost) out += fmt::format("  cost {:.4g} J", choice->objective);
    out += "\n";
  }
  print(out);
  // No answer is not success: a script that picks a mode from this must see it.
  if (unmet > 0) {
    std::fflush(stdout);
    throw jetchar::cli::CommandExit(
        jetchar::cli::kFailure,
        fmt::format("error: {} of {} configuration(s) have no measured mode that meets the budget", unmet,
                    groups.size()));
  }
}

// `--model auto` is the mode predictor (analysis/mode_predictor.h): its forms chosen by
// cross-validation, with intervals; the other names are the fixed models of analysis/predictor.h.
constexpr const char* kAuto = "auto";

std::vector<ModelKind> models_of(const std::string& name) {
  if (name == "all" || name == kAuto) return name == kAuto ? std::vector<ModelKind>{} : all_model_kinds();
  return {parse_model_kind(name)};
}

bool with_auto(const std::string& name) { return name == "all" || name == kAuto; }

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json scores_json(const std::vector<FormScore>& scores) {
  auto out = nlohmann::json::array();
  for (const auto& s : scores) out.push_back({{"form", s.form}, {"loo_mape_pct", optional_json(s.loo_mape)}});
  return out;
}

nlohmann::json axes_json(const std::map<std::string, std::string>& axes) {
  auto out = nlohmann::json::object();
  for (const auto& [k, v] : axes) out[k] = v;
  return out;
}

std::string forms_of(const ModePredictor& m) {
  return fmt::format("{}/{}", to_string(m.time_form()), m.power_form() ? to_string(*m.power_form()) : "-");
}

// fit --profile: each model fitted on N modes of its design and on random choices of N, scored on
// the rest. The auto model's design is the adaptive pick (what predict --profile fits on); each of
// its fits chooses forms by cross-validation (seconds on 15 modes), hence fewer random choices.
constexpr int kRandomChoices = 20, kAutoRandomChoices = 5;

struct ProfileComparison {
  std::string model;
  std::optional<ProfileEvaluation> evaluation;  // nullopt: `needs` says why not
  std::string needs;
};

std::vector<ProfileComparison> compare_profiles(const AnalyzeOptions& o, const ModeGroup& g) {
  std::vector<ProfileComparison> out;
  const std::size_t n = *o.profile, modes = g.points.size();
  auto needs = [&](std::size_t least) {
    return fmt::format("needs between {} and {} profiled modes", least, modes > 0 ? modes - 1 : 0);
  };
  for (ModelKind kind : models_of(o.model)) {
    const std::size_t least = TimeEnergyModel::coefficient_count(kind);
    if (n < least || n >= modes) {
      out.push_back({std::string(to_string(kind)), std::nullopt, needs(least)});
    } else {
      out.push_back(
          {std::string(to_string(kind)), evaluate_profile_choice(kind, g.points, n, kRandomChoices, o.seed), ""});
    }
  }
  if (with_auto(o.model)) {
    ModePredictorOptions options;
    options.level = o.interval_level;
    if (n < 3 || n >= modes) {
      out.push_back({kAuto, std::nullopt, needs(3)});
    } else {
      out.push_back({kAuto, evaluate_auto_profile_choice(g.points, n, kAutoRandomChoices, o.seed, options), ""});
    }
  }
  return out;
}

nlohmann::json profile_json(const AnalyzeOptions& o, const ModeGroup& g) {
  auto models = nlohmann::json::array();
  for (const ProfileComparison& c : compare_profiles(o, g)) {
    if (!c.evaluation) {
      models.push_back({{"model", c.model}, {"error", c.needs}});
      continue;
    }
    const ProfileEvaluation& e = *c.evaluation;
    models.push_back({{"model", c.model},
                      {"design",
                       {{"time_mape_pct", optional_json(e.design_time_mape)},
                        {"power_mape_pct", optional_json(e.design_power_mape)},
                        {"energy_mape_pct", optional_json(e.design_energy_mape)}}},
                      {"random",
                       {{"time_mape_pct", optional_json(e.random_time_mape)},
                        {"power_mape_pct", optional_json(e.random_power_mape)},
                        {"energy_mape_pct", optional_json(e.random_energy_mape)}}},
                      {"random_choices", e.random_trials}});
  }
  const std::size_t modes = g.points.size();
  return {{"profiled", *o.profile}, {"evaluated", modes > *o.profile ? modes - *o.profile : 0}, {"models", models}};
}

std::string profile_text(const AnalyzeOptions& o, const ModeGroup& g) {
  const std::size_t modes = g.points.size();
  std::string out = fmt::format(
      "  profiling {} modes, evaluated on the other {}: the design (spread; auto: adaptive pick) against the median "
      "of random choices ({}; auto: {})\n",
      *o.profile, modes > *o.profile ? modes - *o.profile : 0, kRandomChoices, kAutoRandomChoices);
  for (const ProfileComparison& c : compare_profiles(o, g)) {
    if (!c.evaluation) {
      out += fmt::format("  {:<9} {}\n", c.model, c.needs);
      continue;
    }
    const ProfileEvaluation& e = *c.evaluation;
    out += fmt::format("  {:<9} time % design {:>7} random {:>7}   energy % design {:>7} random {:>7}", c.model,
                       opt(e.design_time_mape, "{:.2f}"), opt(e.random_time_mape, "{:.2f}"),
                       opt(e.design_energy_mape, "{:.2f}"), opt(e.random_energy_mape, "{:.2f}"));
    if (e.design_power_mape || e.random_power_mape) {
      out += fmt::format("   power % design {:>7} random {:>7}", opt(e.design_power_mape, "{:.2f}"),
                         opt(e.random_power_mape, "{:.2f}"));
    }
    out += "\n";
  }
  return out;
}

void run_fit(const AnalyzeOptions& o) {
  auto groups = mode_groups(load_points(o.results));
  if (groups.empty())
    throw std::invalid_argument(
        fmt::format("{}: no configuration has all four knobs (cpu_cores, cpu_freq, gpu_freq, emc_freq)", o.results));
  if (o.json) {
    auto doc = nlohmann::json::object(
        {{"epochs", kWarmEpochs}, {"knobs", kResolvedKnobs}, {"groups", nlohmann::json::array()}});
    for (const auto& g : groups) {
      nlohmann::json group = {{"workload", g.workload},
                              {"axes", axes_json(g.axes)},
                              {"power_modes", g.points.size()},
                              {"models", nlohmann::json::array()}};
      for (ModelKind kind : models_of(o.model)) {
        Validation v = cross_validate(kind, g.points, o.folds, o.seed);
        group["models"].push_back({{"model", to_string(kind)},
                                   {"loo_time_mape_pct", optional_json(v.loo_time_mape)},
                                   {"loo_energy_mape_pct", optional_json(v.loo_energy_mape)},
                                   {"folds", v.folds},
                                   {"kfold_time_mape_pct", optional_json(v.kfold_time_mape)},
                                   {"kfold_energy_mape_pct", optional_json(v.kfold_energy_mape)}});
      }
      if (with_auto(o.model) && g.points.size() >= 3) {
        ModePredictorOptions options;
        options.level = o.interval_level;
        ModePredictor m = ModePredictor::fit(g.points, options);
        group["auto"] = {
            {"time_form", to_string(m.time_form())},
            {"power_form", m.power_form() ? nlohmann::json(to_string(*m.power_form())) : nlohmann::json(nullptr)},
            {"loo_time_mape_pct", m.loo_time_mape()},
            {"loo_power_mape_pct", optional_json(m.loo_power_mape())},
            {"loo_energy_mape_pct", optional_json(m.loo_energy_mape())},
            {"time_forms", scores_json(m.time_scores())},
            {"power_forms", scores_json(m.power_scores())},
            {"interval_level", m.level()}};
      }
      if (o.profile) group["profile"] = profile_json(o, g);
      doc["groups"].push_back(std::move(group));
    }
    print(doc.dump(2) + "\n");
    return;
  }
  std::string out = fmt::format("{}\n{}\n", kWarmEpochs, kResolvedKnobs);
  for (const auto& g : groups) {
    out += fmt::format("{}: {} power modes\n", g.label(), g.points.size());
    out += fmt::format("  {:<9} {:>14} {:>14} {:>18} {:>18}\n", "model", "LOO time %", "LOO energy %",
                       fmt::format("{}-fold time %", o.folds), fmt::format("{}-fold energy %", o.folds));
    if (with_auto(o.model) && g.points.size() >= 3) {
      ModePredictor m = ModePredictor::fit(g.points);
      out += fmt::format(
          "  {:<9} {:>14.2f} {:>14} {:>18} {:>18}   forms chosen by LOO: time {}, power {} (LOO power % {})\n", kAuto,
          m.loo_time_mape(), opt(m.loo_energy_mape(), "{:.2f}"), "-", "-", to_string(m.time_form()),
          m.power_form() ? to_string(*m.power_form()) : "-", opt(m.loo_power_mape(), "{:.2f}"));
    }
    for (ModelKind kind : models_of(o.model)) {
      Validation v = cross_validate(kind, g.points, o.folds, o.seed);
      out += fmt::format("  {:<9} {:>14} {:>14} {:>18} {:>18}\n", to_string(kind), opt(v.loo_time_mape, "{:.2f}"),
                         opt(v.loo_energy_mape, "{:.2f}"), opt(v.kfold_time_mape, "{:.2f}"),
                         opt(v.kfold_energy_mape, "{:.2f}"));
      if (o.table) {
        out += fmt::format("    {:<36} {:>11} {:>11} {:>11} {:>11}\n", "mode (left out)", "time_s", "predicted",
                           "energy_j", "predicted");
        for (const auto& row : v.loo) {
          out += fmt::format("    {:<36} {:>11.4g} {:>11.4g} {:>11} {:>11}\n", row.mode.label(), row.measured_time_s,
                             row.predicted_time_s, opt(row.measured_energy_j), opt(row.predicted_energy_j));
        }
      }
    }
    if (o.profile) out += profile_text(o, g);
  }
  print(out);
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

// The points predict fits a group on (indices into g.points): every measured mode, or --profile N
// of them. The auto model profiles the N modes an adaptive_profile sweep of N modes would
// (adaptive_pick; bench/README.md, "Adaptive profiling": fewer fits over the goal than the
// space-filling design alone). A transfer profiles the space-filling design; the fixed models
// keep the max-min spread design they were compared on.
std::vector<std::size_t> profiled_points(const AnalyzeOptions& o, const ModeGroup& g, bool automatic) {
  if (!o.profile) {
    std::vector<std::size_t> all(g.points.size());
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  std::vector<PowerMode> candidates;
  for (const auto& p : g.points) candidates.push_back(p.key.mode);
  if (!automatic) return spread_design(candidates, *o.profile);
  if (!o.reference.empty()) return space_filling_design(candidates, *o.profile);
  ModePredictorOptions options;
  options.level = o.interval_level;
  return adaptive_pick(g.points, *o.profile, options);
}

// The MAPE of predictions against the measured values of the modes the fit left out (--profile
// N): the error a user can expect on modes never run, measured on modes that were.
struct HeldOutMape {
  double sum = 0;  // of |predicted / measured − 1|
  std::size_t modes = 0;
  void add(double predicted, double measured) {
    sum += std::abs(predicted / measured - 1);
    ++modes;
  }
  std::optional<double> pct() const {
    return modes ? std::optional<double>(100 * sum / static_cast<double>(modes)) : std::nullopt;
  }
};

// One group's model: a transfer from the reference, the auto model, or a fixed one; and its name.
struct GroupModel {
  std::optional<TimeEnergyModel> fixed;
  std::optional<ModePredictor> predictor;
  std::optional<TransferPredictor> transfer;
  std::string name;
};

GroupModel fit_group(const AnalyzeOptions& o, ModelKind kind, const std::optional<ReferenceModel>& reference,
                     ClockMapping mapping, const std::vector<PowerMode>& modes, const std::vector<ConfigPoint>& train) {
  GroupModel out;
  if (reference) {
    TransferOptions options;
    options.level = o.interval_level;
    options.mapping = mapping;
    options.target_modes = modes;
    out.transfer = TransferPredictor::fit(*reference, train, options);
    // From 8 modes the workload's own predictor may have predicted its modes better (the model then says auto).
    out.name = out.transfer->adapted() ? fmt::format("transfer:{}", reference->workload())
                                       : fmt::format("auto:{}", forms_of(*out.transfer->own()));
  } else if (with_auto(o.model)) {
    ModePredictorOptions options;
    options.level = o.interval_level;
    out.predictor = ModePredictor::fit(train, options);
    out.name = fmt::format("auto:{}", forms_of(*out.predictor));
  } else {
    out.fixed = TimeEnergyModel::fit(kind, train);
    out.name = std::string(to_string(kind));
  }
  return out;
}

void run_predict(const AnalyzeOptions& o) {
  const bool automatic = with_auto(o.model);  // "all" is fit's default: predict has one model
  ModelKind kind = automatic ? ModelKind::kNnls : parse_model_kind(o.model);
  if (!o.reference.empty() && !automatic) {
    throw jetchar::cli::UsageError(
        fmt::format("--reference adapts the auto model; --model {} is a fixed model: leave --model out", o.model));
  }
  if (o.suggest && (!automatic || !o.reference.empty())) {
    throw jetchar::cli::UsageError(
        "--suggest asks the auto model's left-out fits where they disagree: leave --model and --reference out");
  }
  auto modes = load_modes(o.modes);
  const ClockMapping mapping = parse_clock_mapping(o.clock_mapping);
  std::optional<ReferenceModel> reference;
  if (!o.reference.empty()) reference = load_reference(o);
  auto groups = mode_groups(load_points(o.results));
  if (groups.empty()) throw std::invalid_argument(fmt::format("{}: no configuration has all four knobs", o.results));
  // The CSV stays plain (no comment line for a parser to trip on); the note goes to stderr.
  std::fprintf(stderr, "predicted: warm epoch time, power and energy, fitted to the measured %s; %s\n", kWarmEpochs,
               kResolvedKnobs);
  if (reference) {
    std::fprintf(stderr, "%s\n",
                 fmt::format("transfer: each workload adapts reference '{}' of {} ({} modes, time form {}, clocks {}): "
                             "one multiplier per time and power term, fitted to its own profiled modes",
                             reference->workload(), o.reference, reference->modes(),
                             to_string(reference->time_model().form()), to_string(mapping))
                     .c_str());
  }
  std::string out =
      "workload,axes,mode,cpu_cores,cpu_freq_khz,gpu_freq_khz,emc_freq_khz,model,profiled,predicted_time_s,"
      "predicted_power_w,predicted_energy_j,time_low_s,time_high_s,power_low_w,power_high_w,energy_low_j,"
      "energy_high_j,fitted_on,measured_time_s,measured_power_w,measured_energy_j\n";
  auto doc = nlohmann::json::object(
      {{"epochs", kWarmEpochs}, {"knobs", kResolvedKnobs}, {"predictions", nlohmann::json::array()}});
  if (automatic) doc["interval_level"] = o.interval_level;
  if (reference) doc["reference"] = reference_json(o, *reference, mapping);
  auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.6g}", *v) : std::string(); };
  for (const auto& g : groups) {
    const std::vector<std::size_t> picked = profiled_points(o, g, automatic);
    std::vector<ConfigPoint> train;
    std::vector<bool> in_fit(g.points.size(), false);
    for (std::size_t i : picked) train.push_back(g.points[i]), in_fit[i] = true;
    std::map<ModeKnobs, std::size_t> measured_at;  // a mode of --modes finds its measured point by its knobs
    for (std::size_t i = 0; i < g.points.size(); ++i) measured_at.emplace(ModeKnobs::of(g.points[i].key.mode), i);
    HeldOutMape held_out_time, held_out_power, held_out_energy;
    auto [fixed, predictor, transfer, model_name] = fit_group(o, kind, reference, mapping, modes, train);
    std::string axes;
    for (const auto& [axis, value] : g.axes) axes += (axes.empty() ? "" : " ") + axis + "=" + value;
    const std::string group = g.workload + (axes.empty() ? "" : " (" + axes + ")");  // as stderr names it
    std::vector<PowerMode> profiled_modes;
    for (const ConfigPoint& p : train) profiled_modes.push_back(p.key.mode);
    const ProfiledRange range(profiled_modes);
    std::map<std::string_view, std::size_t> extrapolated;  // per knob, the modes beyond its profiled range
    for (const PowerMode& m : modes) {
      nlohmann::json beyond = nlohmann::json::array();
      for (const KnobRange& k : range.outside(m)) beyond.push_back(k.knob), ++extrapolated[k.knob];
      std::optional<double> power, energy, t_lo, t_hi, p_lo, p_hi, e_lo, e_hi;
      double time = 0;
      if (predictor || transfer) {
        ModePrediction p = predictor ? predictor->predict(m) : transfer->predict(m);
        time = p.time_s.value, t_lo = p.time_s.low, t_hi = p.time_s.high;
        if (p.power_w) power = p.power_w->value, p_lo = p.power_w->low, p_hi = p.power_w->high;
        if (p.energy_j) energy = p.energy_j->value, e_lo = p.energy_j->low, e_hi = p.energy_j->high;
      } else {
        Prediction p = fixed->predict(m);
        time = p.time_s, power = p.power_w, energy = p.energy_j;
      }
      const auto at = measured_at.find(ModeKnobs::of(m));
      const ConfigPoint* measured = at == measured_at.end() ? nullptr : &g.points[at->second];
      const bool fitted_on = measured != nullptr && in_fit[at->second];
      if (measured && !fitted_on) {
        held_out_time.add(time, measured->time_s);
        if (power && measured->power_w) held_out_power.add(*power, *measured->power_w);
        if (energy && measured->energy_j) held_out_energy.add(*energy, *measured->energy_j);
      }
      std::string measured_csv = ",,";  // time, power, energy: empty where the mode was not measured
      nlohmann::json measured_json;     // null likewise
      if (measured) {
        measured_csv = fmt::format("{:.6g},{},{}", measured->time_s, num(measured->power_w), num(measured->energy_j));
        measured_json = {{"time_s", measured->time_s},
                         {"power_w", optional_json(measured->power_w)},
                         {"energy_j", optional_json(measured->energy_j)}};
      }
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.6g},{},{},{},{},{},{},{},{},{},{}\n", g.workload, axes, m.name,
                         *m.cpu_cores, *m.cpu_freq_khz, *m.gpu_freq_khz, *m.emc_freq_khz, model_name, train.size(),
                         time, num(power), num(energy), num(t_lo), num(t_hi), num(p_lo), num(p_hi), num(e_lo),
                         num(e_hi), fitted_on ? 1 : 0, measured_csv);
      auto interval = [](const std::optional<double>& v, const std::optional<double>& lo,
                         const std::optional<double>& hi) {
        nlohmann::json j = {{"value", optional_json(v)}};
        if (lo) j["low"] = *lo, j["high"] = *hi;
        return j;
      };
      doc["predictions"].push_back({{"workload", g.workload},
                                    {"axes", axes_json(g.axes)},
                                    {"mode", m.name},
                                    {"cpu_cores", *m.cpu_cores},
                                    {"cpu_freq_khz", *m.cpu_freq_khz},
                                    {"gpu_freq_khz", *m.gpu_freq_khz},
                                    {"emc_freq_khz", *m.emc_freq_khz},
                                    {"model", model_name},
                                    {"profiled", train.size()},
                                    {"time_s", interval(time, t_lo, t_hi)},
                                    {"power_w", interval(power, p_lo, p_hi)},
                                    {"energy_j", interval(energy, e_lo, e_hi)},
                                    {"extrapolates", beyond},
                                    {"fitted_on", fitted_on},
                                    {"measured", measured_json}});
    }
    if (held_out_time.modes > 0) {
      doc["held_out"].push_back({{"workload", g.workload},
                                 {"axes", axes_json(g.axes)},
                                 {"modes", held_out_time.modes},
                                 {"time_mape_pct", optional_json(held_out_time.pct())},
                                 {"power_mape_pct", optional_json(held_out_power.pct())},
                                 {"energy_mape_pct", optional_json(held_out_energy.pct())}});
      auto pct = [](const HeldOutMape& m) { return m.modes ? fmt::format("{:.2f} %", *m.pct()) : std::string("-"); };
      std::fprintf(
          stderr, "%s\n",
          fmt::format("held out: {}: {} measured modes the fit left out: MAPE time {}, power {}, energy {}", group,
                      held_out_time.modes, pct(held_out_time), pct(held_out_power), pct(held_out_energy))
              .c_str());
    }
    if (o.suggest) {
      nlohmann::json next = nlohmann::json::array();
      std::string names;
      for (std::size_t i : modes_to_profile_next(train, modes, *o.suggest)) {
        const PowerMode& m = modes[i];
        next.push_back({{"mode", m.name},
                        {"cpu_cores", *m.cpu_cores},
                        {"cpu_freq_khz", *m.cpu_freq_khz},
                        {"gpu_freq_khz", *m.gpu_freq_khz},
                        {"emc_freq_khz", *m.emc_freq_khz}});
        names += (names.empty() ? "" : ", ") + m.label();
      }
      doc["profile_next"].push_back({{"workload", g.workload}, {"axes", axes_json(g.axes)}, {"modes", next}});
      std::fprintf(stderr, "%s\n",
                   fmt::format("profile next: {}: {} (where a measurement would most narrow the predictions)", group,
                               names.empty() ? "no mode left" : names)
                       .c_str());
    }
    for (const KnobRange& k : range.knobs()) {
      if (!extrapolated.contains(k.knob)) continue;
      std::fprintf(stderr, "%s\n",
                   fmt::format("extrapolated: {}: {} of {} modes lie outside the profiled {} range {}..{}; "
                               "cross-validation on the profiled modes does not check predictions there",
                               group, extrapolated[k.knob], modes.size(), k.knob, k.low, k.high)
                       .c_str());
    }
  }
  print(o.json ? doc.dump(2) + "\n" : out);
}

// `analyze predictions`: the predictions an adaptive_profile sweep stored for every power mode
// (analysis/mode_predictions.h), measured beside predicted, and the predicted time-energy Pareto
// front over all of them.
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

nlohmann::json interval_json(const std::optional<Interval>& i) {
  return i ? nlohmann::json({{"value", i->value}, {"low", i->low}, {"high", i->high}}) : nlohmann::json(nullptr);
}

// --json: per sweep, every mode with its intervals and front marks, then the front's points.
nlohmann::json predictions_json(const std::string& results, const std::vector<StoredModePrediction>& predictions,
                                const std::vector<PredictedParetoFront>& fronts) {
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
           {"front", nlohmann::json::array()}});
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

// The table of one sweep's modes: a heading when the sweep starts, then one line per mode.
std::string predictions_table(const std::vector<StoredModePrediction>& predictions,
                              const std::vector<PredictedParetoFront>& fronts, std::size_t width) {
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
  const auto fronts = predicted_pareto_fronts(predictions);
  if (o.json) {
    print(predictions_json(o.results, predictions, fronts).dump(2) + "\n");
    return;
  }
  std::size_t width = std::string_view("power mode").size();
  for (const auto& p : predictions) width = std::max(width, p.mode.label().size());
  print(
      fmt::format("{}: predictions stored by adaptive profiling ({}); each interval at the level shown; front: on the "
                  "predicted time-energy Pareto front (measured values for profiled modes, predictions for the rest), "
                  "maybe: off it, but within its intervals of it\n",
                  o.results, kWarmEpochs) +
      predictions_table(predictions, fronts, width) + predicted_fronts_text(predictions, fronts, width));
}

// `analyze predict` and its options; `results` adds the RESULTS argument every subcommand takes.
void add_predict_command(CLI::App& analyze, const std::shared_ptr<AnalyzeOptions>& o,
                         const std::function<void(CLI::App*)>& results) {
  auto* predict = analyze.add_subcommand(
      "predict",
      "Predict epoch time, power and energy for power modes never run, with intervals (CSV or JSON on stdout)");
  results(predict);
  predict
      ->add_option("--modes", o->modes,
                   "CSV of modes: mode,cpu_cores,cpu_freq_khz,gpu_freq_hz,emc_freq_hz (units hz/khz/mhz)")
      ->required()
      ->check(CLI::ExistingFile);
  predict->add_option("--model", o->model,
                      "auto (default: physical forms or power laws chosen by cross-validation, with intervals), "
                      "linear, inverse, resource or nnls");
  predict->add_option("--level", o->interval_level, "Coverage of the auto model's intervals")
      ->capture_default_str()
      ->check(jetchar::cli::between(0.5, 0.99, "interval level"));
  predict->add_flag("--json", o->json,
                    "JSON on stdout instead of CSV: each prediction with its interval, the knobs on which it lies "
                    "outside the profiled modes' range (extrapolates; stderr names them per workload either way) and "
                    "the mode's measured values where the results hold it (measured, fitted_on)");
  predict
      ->add_option("--profile", o->profile,
                   "Fit on N of the measured modes only (for auto, those an adaptive_profile sweep of N modes "
                   "would profile, refitting after each of its last quarter's picks, so a large N takes minutes; "
                   "with --reference a space-filling design; the spread design otherwise); the measured modes of "
                   "--modes the fit left out give the held-out MAPE (stderr, and held_out in --json)")
      ->check(jetchar::cli::between(1, 1000000, "power modes"));
  predict
      ->add_option(
          "--suggest", o->suggest,
          "Also name N modes of --modes to profile next, per workload: where a measurement would most narrow the "
          "auto model's predictions, each chosen as if the ones before it were measured (stderr, and profile_next in "
          "--json)")
      ->check(jetchar::cli::between(1, 1000, "power modes"));
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
  jetchar::cli::add_examples(
      *predict,
      "Examples (a reference workload measured on 12 modes, a new one on 4, every mode of a list predicted):\n"
      "  jetchar sweep run examples/sim-agx-orin-transfer-reference.textproto\n"
      "  jetchar sweep run examples/sim-agx-orin-transfer-new.textproto\n"
      "  jetchar analyze predict results/sim-agx-orin-transfer-new --modes examples/agx-orin-transfer-modes.csv "
      "--reference results/sim-agx-orin-transfer-reference");
  predict->callback([o] { run_predict(*o); });
}

void add_analyze_command(CLI::App& app) {
  auto& analyze = jetchar::cli::command_group(app, "analyze",
                                              "Statistics, Pareto fronts, power-mode choice and prediction over a "
                                              "sweep's results (directory, results.db, CSV or JSONL)");
  auto o = std::make_shared<AnalyzeOptions>();
  auto results = [&](CLI::App* sub) {
    sub->add_option(
           "results", o->results,
           "A results directory (from `jetchar sweep run`), its results.db, or an export: .csv, .jsonl/.ndjson/.json "
           "(layout: analysis/README.md)")
        ->required()
        ->check(CLI::ExistingPath);
  };

  auto* stats = analyze.add_subcommand(
      "stats", "Median, mean, stddev, CV, olympic mean and bootstrap CI across epochs, repetitions, devices");
  results(stats);
  stats->add_option("--level", o->level, "epochs, repetitions, devices or all")->capture_default_str();
  stats->add_option("--resamples", o->resamples, "Bootstrap resamples")
      ->capture_default_str()
      ->check(jetchar::cli::between(1, 1000000, "resamples"));
  stats->add_option("--seed", o->seed, "Bootstrap seed")
      ->check(jetchar::cli::unsigned_integer("a seed"))
      ->capture_default_str();
  stats->callback([o] { run_stats(*o); });

  auto* pareto = analyze.add_subcommand(
      "pareto", "Time-energy Pareto front per workload over power modes and the other swept axes");
  results(pareto);
  pareto->add_option("--per", o->per, "Keep this axis fixed: one front per value (repeatable), e.g. --per batch");
  pareto->callback([o] { run_pareto(*o); });

  auto* choose_cmd =
      analyze.add_subcommand("choose", "Best configuration per workload under a budget, or by Zeus cost");
  results(choose_cmd);
  auto* t = choose_cmd->add_option("--max-time", o->max_time_s, "Least energy with epoch time <= S seconds")
                ->check(jetchar::cli::at_least(0, "seconds"));
  auto* p = choose_cmd->add_option("--max-power", o->max_power_w, "Least time with average power <= W watts")
                ->check(jetchar::cli::at_least(0, "watts"));
  auto* e = choose_cmd->add_option("--max-energy", o->max_energy_j, "Least time with epoch energy <= J joules")
                ->check(jetchar::cli::at_least(0, "joules"));
  auto* z = choose_cmd->add_option("--zeus-eta", o->zeus_eta, "Least Zeus cost eta*E + (1-eta)*P_max*T, eta in [0, 1]")
                ->check(jetchar::cli::between(0, 1, "the weight of energy against time"));
  choose_cmd
      ->add_option("--max-power-w", o->zeus_max_power_w, "P_max for --zeus-eta (default: the largest measured power)")
      ->needs(z)
      ->check(jetchar::cli::above(0, "watts"));
  t->excludes(p)->excludes(e)->excludes(z);
  p->excludes(e)->excludes(z);
  e->excludes(z);
  choose_cmd->add_option("--per", o->per, "Keep this axis fixed: one choice per value (repeatable)");
  choose_cmd->callback([o] { run_choose(*o); });

  auto* fit = analyze.add_subcommand("fit", "Fit time/energy predictors per workload; leave-one-out and k-fold MAPE");
  results(fit);
  fit->add_option("--model", o->model,
                  "linear (the study's), inverse, resource, nnls, auto (physical forms or power laws chosen by "
                  "cross-validation) or all")
      ->capture_default_str();
  fit->add_option("--profile", o->profile,
                  "Also fit each model on N profiled modes and on random choices of N, and give the MAPE on the "
                  "other modes: the spread design for the fixed models (median of 20 random choices), the "
                  "adaptive pick predict --profile fits on for auto (median of 5; each auto fit takes seconds)")
      ->check(jetchar::cli::between(1, 1000000, "power modes"));
  fit->add_option("--folds", o->folds, "k for k-fold cross-validation")
      ->capture_default_str()
      ->check(jetchar::cli::between(2, 1000, "folds"));
  fit->add_option("--seed", o->seed, "Seed for the fold shuffle and random profiles")
      ->check(jetchar::cli::unsigned_integer("a seed"))
      ->capture_default_str();
  fit->add_flag("--table", o->table, "Print the leave-one-out predicted-vs-measured table");
  fit->add_flag("--json", o->json, "JSON on stdout: per group each model's errors and the auto model's chosen forms");
  fit->callback([o] { run_fit(*o); });

  add_predict_command(analyze, o, results);

  auto* predictions = analyze.add_subcommand(
      "predictions",
      "The predictions an adaptive_profile sweep stored for every power mode (measured beside predicted, with "
      "intervals) and the predicted time-energy Pareto front over all of them");
  predictions->add_option("results", o->results, "A results directory of an adaptive_profile sweep, or its results.db")
      ->required()
      ->check(CLI::ExistingPath);
  predictions->add_flag("--json", o->json, "JSON on stdout: per sweep every mode with its intervals, and the front");
  predictions->callback([o] { run_predictions(*o); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(70, add_analyze_command);
