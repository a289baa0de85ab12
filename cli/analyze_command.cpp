// `jetchar analyze stats|pareto|choose|fit|predict|predictions|compare|scaling RESULTS`: statistics, Pareto fronts,
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
#include "analysis/config_groups.h"
#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_choice.h"
#include "analysis/mode_group_predictions.h"
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
#include "analysis/task_scores.h"
#include "analysis/transfer_predictor.h"
#include "analysis/variability.h"
#include "cli/analyze_options.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"

namespace {

using namespace jetchar::analysis;
using namespace jetchar::cli;

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
  const auto latency = parse_latency_percentile(o.latency);
  if (!latency)
    throw UsageError(fmt::format("--latency '{}' is not valid; use avg, p50, p90, p95, p99 or max", o.latency));
  BootstrapOptions bootstrap{.level = 0.95, .resamples = o.resamples, .seed = o.seed};
  const QueryMeasures measures{.latency = *latency, .speed = query_speed(o), .energy = query_energy(o)};
  const bool throughput = measures.speed == QuerySpeed::kThroughput;
  for (VariabilityLevel level : levels) {
    const auto rows = variability(records, level, bootstrap, measures);
    // Training rows and inference rows each get a table in their own units (s and J, ms and J/query).
    for (const bool queries : {false, true}) {
      std::vector<const VariabilityRow*> table;
      std::vector<ConfigKey> keys;
      for (const auto& r : rows) {
        if (r.query_latency.has_value() != queries) continue;
        table.push_back(&r);
        keys.push_back(r.key);
      }
      if (table.empty() && (queries || rows.size() > 0)) continue;  // an empty store still shows its header
      const auto shown = varying_axes(keys);
      // A latency in ms; a throughput as it is (samples/s).
      const double scale = queries && !throughput ? 1000 : 1;
      out += queries ? fmt::format(
                           "\nacross {} (inference: {}; energy per {}, J; 95% bootstrap CI of the median {})\n",
                           to_string(level),
                           throughput ? "throughput, samples/s" : fmt::format("{} latency of a query, ms", o.latency),
                           to_string(measures.energy), throughput ? "throughput" : "latency")
                     : fmt::format("\nacross {} (warm epoch time, s; energy, J; 95% bootstrap CI of the median time)\n",
                                   to_string(level));
      out += fmt::format("{:<64} {:<16} {:>4} {:>10} {:>10} {:>9} {:>7} {:>10} {:>21} {:>10} {:>7}\n", "configuration",
                         "group", "n", "median", "mean", "stddev", "cv%", "olympic", "median CI", "energy", "cv%");
      for (const VariabilityRow* row : table) {
        const VariabilityRow& r = *row;
        const auto scaled = [scale](const std::optional<double>& v) {
          return v ? std::optional<double>(scale * *v) : std::nullopt;
        };
        std::string ci = r.time_median_ci ? fmt::format("[{:.4g}, {:.4g}]", scale * r.time_median_ci->low,
                                                        scale * r.time_median_ci->high)
                                          : "-";
        out += fmt::format(
            "{:<64} {:<16} {:>4} {:>10.4g} {:>10.4g} {:>9} {:>7} {:>10} {:>21} {:>10} {:>7}\n",
            config_label(r.key, shown), r.group, r.time_s.n, scale * r.time_s.median, scale * r.time_s.mean,
            opt(scaled(r.time_s.stddev)), r.time_s.cv ? fmt::format("{:.2f}", 100 * *r.time_s.cv) : "-",
            opt(scaled(r.time_s.olympic_mean)), ci, r.energy_j ? fmt::format("{:.4g}", r.energy_j->median) : "-",
            r.energy_j && r.energy_j->cv ? fmt::format("{:.2f}", 100 * *r.energy_j->cv) : "-");
      }
    }
  }
  // Task scores (dev F1, exact match, accuracy) over the runs of each configuration: seeds and
  // repetitions are its samples.
  const auto scores = task_scores(records);
  if (!scores.empty()) {
    std::vector<ConfigKey> keys;
    for (const auto& r : scores) keys.push_back(r.key);
    const auto shown = varying_axes(keys);
    out +=
        "\ntask scores over runs (seeds, repetitions; each run's last evaluated epoch): mean, sample stddev, 95% "
        "Student t interval of the mean\n";
    out += fmt::format("{:<64} {:<28} {:>4} {:>8} {:>8} {:>19}\n", "configuration", "score", "runs", "mean", "stddev",
                       "95% CI");
    for (const auto& r : scores) {
      const std::string ci = r.ci ? fmt::format("[{:.4f}, {:.4f}]", r.ci->low, r.ci->high) : "-";
      out += fmt::format("{:<64} {:<28} {:>4} {:>8.4f} {:>8} {:>19}\n", config_label(r.key, shown), r.metric, r.runs,
                         r.mean, opt(r.stddev, "{:.4f}"), ci);
    }
  }
  print(out);
}

// Every --per axis must be one the results record; a misspelt axis would otherwise group every
// configuration under "axis=" and answer a question nobody asked.
void check_per_axes(const std::vector<ConfigPoint>& points, const AnalyzeOptions& o) {
  const auto known = recorded_axes(points);
  for (const auto& axis : o.per) {
    if (known.contains(axis)) continue;
    std::string names;
    for (const auto& name : known) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument(
        fmt::format("--per '{}' is not an axis of {}; its axes: {}", axis, o.results, names.empty() ? "none" : names));
  }
}

// The header lines that say what the figures are: training's, inference's, or both.
std::string measures_header(std::span<const ConfigPoint> points) {
  const auto query = std::find_if(points.begin(), points.end(), [](const auto& p) { return p.query_latency; });
  const bool epochs = std::any_of(points.begin(), points.end(), [](const auto& p) { return !p.query_latency; });
  return fmt::format(
      "{}{}", epochs ? fmt::format("{}\n", kWarmEpochs) : "",
      query != points.end() ? fmt::format("{}\n", query_medians_note(query->query_speed, query->query_energy)) : "");
}

// What a group's front weighs against its energy: "time" (epochs), "latency" or "throughput".
std::string_view front_speed(const ParetoGroup& g) {
  if (!g.query_latency) return "time";
  return to_string(g.points.front().query_speed);
}

void run_pareto(const AnalyzeOptions& o) {
  const auto points = load_points(o);
  check_per_axes(points, o);
  auto groups = pareto_groups(points, per_board_kind(points, o.per));
  if (groups.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: no configuration has an epoch energy or an energy per {}", o.results, o.energy_per));
  }
  std::string out = measures_header(points);
  for (const auto& g : groups) {
    const auto shown = varying_axes(g.points);
    const ConfigPoint& first = g.points.front();
    out += fmt::format("{}: {} of {} configurations on the {}-energy Pareto front\n", g.label(), g.front.size(),
                       g.points.size(), front_speed(g));
    // Column widths follow the labels: custom power modes are long ("custom: 12 cores CPU/GPU/EMC ...").
    std::size_t mode_width = std::string_view("power mode").size(), axes_width = std::string_view("axes").size();
    for (std::size_t i : g.front) {
      mode_width = std::max(mode_width, g.points[i].key.mode.label().size());
      axes_width = std::max(axes_width, axes_label(g.points[i].key, shown).size());
    }
    out += fmt::format("  {:<{}} {:<{}} {:>10} {:>10} {:>8}\n", "power mode", mode_width, "axes", axes_width,
                       time_header(first), energy_header(first), "power_w");
    // Every figure with 4 decimals (0.1 ms of an epoch time, 0.1 µs of a query latency, 0.1 mJ,
    // 0.1 mW): the columns line up and a figure keeps its trailing zeros (2.9520 beside 0.3428).
    for (std::size_t i : g.front) {
      const ConfigPoint& p = g.points[i];
      out += fmt::format("  {:<{}} {:<{}} {:>10.4f} {:>10.4f} {:>8}\n", p.key.mode.label(), mode_width,
                         axes_label(p.key, shown), axes_width, time_value(p), *p.energy_j, opt(p.power_w, "{:.4f}"));
    }
  }
  print(out);
}

Budget budget_of(const AnalyzeOptions& o) {
  // --min-throughput is a budget of its own, or a second bound beside --max-latency.
  int given = !!o.max_time_s + !!o.max_latency + !!o.max_power_w + !!o.max_energy_j + !!o.zeus_eta +
              (o.min_throughput && !o.max_latency);
  if (given != 1)
    throw jetchar::cli::UsageError(
        "give exactly one of --max-time, --max-latency, --min-throughput, --max-power, --max-energy, --zeus-eta "
        "(--min-throughput may go with --max-latency)");
  if (o.zeus_max_power_w && !o.zeus_eta) throw jetchar::cli::UsageError("--max-power-w goes with --zeus-eta");
  if (o.max_latency) {
    Budget budget{Budget::Kind::kMaxLatency, latency_seconds(*o.max_latency)};
    budget.min_throughput = o.min_throughput;
    budget.query_energy = query_energy(o);
    return budget;
  }
  if (o.min_throughput) {
    Budget budget{Budget::Kind::kMinThroughput, *o.min_throughput};
    budget.query_energy = query_energy(o);
    return budget;
  }
  if (o.max_time_s) return {Budget::Kind::kMaxTime, *o.max_time_s};
  if (o.max_power_w) return {Budget::Kind::kMaxPower, *o.max_power_w};
  if (o.max_energy_j) return {Budget::Kind::kMaxEnergy, *o.max_energy_j};
  return {Budget::Kind::kZeusCost, *o.zeus_eta, o.zeus_max_power_w};
}

void run_choose(const AnalyzeOptions& o) {
  Budget budget = budget_of(o);
  // --modes excludes --zeus-eta, and --profile, --objective and --json need --modes (the options).
  if (!o.modes.empty()) {
    run_choose_predicted(o, budget);
    return;
  }
  auto points = load_points(o);
  check_per_axes(points, o);
  const auto choices = choose_per_group(points, per_board_kind(points, o.per), budget);
  if (choices.empty()) {
    const bool inference = budget.kind == Budget::Kind::kMaxLatency || budget.kind == Budget::Kind::kMinThroughput;
    throw std::invalid_argument(
        inference
            ? fmt::format("{}: no inference configuration (runs with query latencies) for {}", o.results,
                          budget.kind == Budget::Kind::kMaxLatency ? "--max-latency" : "--min-throughput")
            : fmt::format("{}: no training configuration (runs with epochs) for --max-time; an inference sweep takes "
                          "--max-latency",
                          o.results));
  }
  std::vector<ConfigPoint> judged;
  for (const auto& choice : choices)
    judged.insert(judged.end(), choice.group.points.begin(), choice.group.points.end());
  std::string out = fmt::format("{}\n{}", budget.describe(), measures_header(judged));
  std::size_t unmet = 0;
  for (const auto& [group, choice] : choices) {
    if (!choice) {
      out += fmt::format("{}: no configuration meets the budget ({} measured)\n", group.label(), group.points.size());
      ++unmet;
      continue;
    }
    const ConfigPoint& p = group.points[choice->index];
    const auto axes = axes_label(p.key, varying_axes(group.points));
    if (p.query_latency) {
      const auto latency_s = query_latency_s(p);
      out += fmt::format("{}: {}{}  {} latency {} ms  energy {} {}  power {} W  {} samples/s", group.label(),
                         p.key.mode.label(), axes.empty() ? "" : " " + axes, to_string(*p.query_latency),
                         opt(latency_s ? std::optional(1000 * *latency_s) : std::nullopt), opt(p.energy_j),
                         energy_header(p), opt(p.power_w), opt(p.throughput_samples_per_s, "{:.1f}"));
    } else {
      out += fmt::format("{}: {}{}  time {:.4g} s  energy {} J  power {} W", group.label(), p.key.mode.label(),
                         axes.empty() ? "" : " " + axes, p.time_s, opt(p.energy_j), opt(p.power_w));
    }
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
                    choices.size()));
  }
}

std::vector<ModelKind> models_of(const std::string& name) {
  if (name == "all" || name == kAuto) return name == kAuto ? std::vector<ModelKind>{} : all_model_kinds();
  return {parse_model_kind(name)};
}

nlohmann::json scores_json(const std::vector<FormScore>& scores) {
  auto out = nlohmann::json::array();
  for (const auto& s : scores) out.push_back({{"form", s.form}, {"loo_mape_pct", optional_json(s.loo_mape)}});
  return out;
}

// fit --profile: each model fitted on N modes of its design and on random choices of N, scored on
// the rest; the auto model's design is the adaptive pick (what predict --profile fits on).
std::vector<ProfileComparison> compare_profiles(const AnalyzeOptions& o, const ModeGroup& g) {
  ModePredictorOptions options;
  options.level = o.interval_level;
  return compare_profile_designs(g.points, *o.profile, models_of(o.model), with_auto(o.model), o.seed, options);
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
      *o.profile, modes > *o.profile ? modes - *o.profile : 0, kRandomProfileChoices, kAutoRandomProfileChoices);
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
  auto groups = mode_groups(load_points(o.results, o.latency));
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
        const GroupFits fits = fit_auto(g, options);
        const ModePredictor& m = fits.time;
        const ModePredictor& e = fits.of_energy();
        group["auto"] = {
            {"time_form", to_string(m.time_form())},
            {"power_form", e.power_form() ? nlohmann::json(to_string(*e.power_form())) : nlohmann::json(nullptr)},
            {"power_fitted_on", fits.energy ? "mean latency" : "the same measure"},
            {"loo_time_mape_pct", m.loo_time_mape()},
            {"loo_power_mape_pct", optional_json(e.loo_power_mape())},
            {"loo_energy_mape_pct", optional_json(e.loo_energy_mape())},
            {"time_forms", scores_json(m.time_scores())},
            {"power_forms", scores_json(e.power_scores())},
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
      const GroupFits fits = fit_auto(g);
      const ModePredictor& e = fits.of_energy();
      out += fmt::format(
          "  {:<9} {:>14.2f} {:>14} {:>18} {:>18}   forms chosen by LOO: time {}, power {} (LOO power % {}){}\n", kAuto,
          fits.time.loo_time_mape(), opt(e.loo_energy_mape(), "{:.2f}"), "-", "-", to_string(fits.time.time_form()),
          e.power_form() ? to_string(*e.power_form()) : "-", opt(e.loo_power_mape(), "{:.2f}"),
          fits.energy ? "; power and energy fitted on the mean latency" : "");
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

  auto latency = [&](CLI::App* sub) {
    sub->add_option("--latency", o->latency,
                    "Inference configurations: the latency of a query they are judged by (avg, p50, p90, p95, p99, "
                    "max)")
        ->capture_default_str()
        ->check(CLI::IsMember({"avg", "p50", "p90", "p95", "p99", "max"}));
  };
  // What else an inference configuration is judged by: its speed and its energy
  // (analysis/query_objectives.h); returns the options, for choose's exclusions.
  auto objectives = [&](CLI::App* sub, const char* speed_use) {
    auto* speed = sub->add_option("--speed", o->speed,
                                  fmt::format("Inference configurations: latency (a query's, --latency) or throughput "
                                              "(samples/s){}",
                                              speed_use))
                      ->capture_default_str()
                      ->check(CLI::IsMember({"latency", "throughput"}));
    auto* energy = sub->add_option("--energy-per", o->energy_per,
                                   "Inference configurations: energy per query (J/query, a batch) or per sample "
                                   "(J/sample); across batch sizes they rank differently")
                       ->capture_default_str()
                       ->check(CLI::IsMember({"query", "sample"}));
    return std::pair(speed, energy);
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
  latency(stats);
  objectives(stats, ": the one summarised");
  stats->callback([o] { run_stats(*o); });

  auto* pareto = analyze.add_subcommand(
      "pareto",
      "Time-energy Pareto front per workload over power modes and the other swept axes (inference: latency or "
      "throughput against J/query or J/sample)");
  results(pareto);
  pareto->add_option("--per", o->per, "Keep this axis fixed: one front per value (repeatable), e.g. --per batch");
  latency(pareto);
  objectives(pareto, ": the one the front weighs against energy (least latency, or most samples/s)");
  pareto->callback([o] { run_pareto(*o); });

  auto* choose_cmd =
      analyze.add_subcommand("choose", "Best configuration per workload under a budget, or by Zeus cost");
  results(choose_cmd);
  auto* t = choose_cmd->add_option("--max-time", o->max_time_s, "Least energy with epoch time <= S seconds")
                ->check(jetchar::cli::at_least(0, "seconds"));
  auto* l = choose_cmd->add_option("--max-latency", o->max_latency,
                                   "Inference: least energy per query (or per sample: --energy-per) with query "
                                   "latency (--latency) <= this, e.g. 50ms, 0.05s (a bare number is ms)");
  auto* mt = choose_cmd
                 ->add_option("--min-throughput", o->min_throughput,
                              "Inference: least energy per query (or per sample) with at least this many samples/s; "
                              "with --max-latency, a second bound")
                 ->check(jetchar::cli::at_least(0, "samples/s"));
  latency(choose_cmd);
  const auto [speed, energy_per] = objectives(
      choose_cmd,
      ": what least time means for inference under --max-power, --max-energy and --zeus-eta (the latency, or the time "
      "per sample: most samples/s)");
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
  t->excludes(l)->excludes(p)->excludes(e)->excludes(z)->excludes(mt);
  mt->excludes(p)->excludes(e)->excludes(z);
  l->excludes(p)->excludes(e)->excludes(z);
  p->excludes(e)->excludes(z);
  e->excludes(z);
  auto* per = choose_cmd->add_option("--per", o->per, "Keep this axis fixed: one choice per value (repeatable)");
  auto* modes = choose_cmd
                    ->add_option("--modes", o->modes,
                                 "Choose over every mode of this CSV (as predict --modes), measured or predicted by "
                                 "the auto model: one choice per workload and setting of the other axes")
                    ->check(CLI::ExistingFile)
                    ->excludes(per)
                    ->excludes(z)
                    ->excludes(l)
                    ->excludes(mt)
                    ->excludes(speed)
                    ->excludes(energy_per);  // its choices are training ones
  choose_cmd
      ->add_option("--confidence", o->confidence,
                   "With --modes: a predicted mode is eligible only where the upper end of its one-sided interval "
                   "at this confidence meets the budget")
      ->capture_default_str()
      ->needs(modes)
      ->check(jetchar::cli::between(0.51, 0.99, "confidence"));
  choose_cmd
      ->add_option("--profile", o->profile,
                   "With --modes: fit the predictions on N of the measured modes (those predict --profile N fits on); "
                   "only those count as measured")
      ->needs(modes)
      ->check(jetchar::cli::between(3, 1000000, "power modes"));
  choose_cmd
      ->add_option("--objective", o->objective,
                   "With --profile: what the profile's last quarter aims at: predictions (the modes that narrow every "
                   "prediction most) or choice (the modes expected to improve this choice most, as an adaptive_profile "
                   "objective does)")
      ->capture_default_str()
      ->check(CLI::IsMember({"predictions", "choice"}))
      ->needs(choose_cmd->get_option("--profile"));
  choose_cmd->add_flag("--json", o->json, "With --modes: JSON on stdout, each choice with its intervals")->needs(modes);
  choose_cmd->callback([o] { run_choose(*o); });

  auto* fit = analyze.add_subcommand("fit", "Fit time/energy predictors per workload; leave-one-out and k-fold MAPE");
  results(fit);
  latency(fit);
  fit->add_option("--model", o->model,
                  "linear (the study's), inverse, resource, nnls, auto (physical forms or power laws chosen by "
                  "cross-validation) or all")
      ->capture_default_str();
  fit->add_option("--profile", o->profile,
                  "Also fit each model on N profiled modes and on random choices of N, and give the MAPE on the "
                  "other modes: the spread design for the fixed models (median of 20 random choices), the "
                  "adaptive pick predict --profile fits on for auto (median of 5)")
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

  add_predict_command(analyze, o, [&](CLI::App* sub) {
    results(sub);
    latency(sub);
  });
  add_predictions_command(analyze, o);
  add_compare_command(analyze, o, latency);
  add_scaling_command(analyze, o);
}

}  // namespace

JETCHAR_REGISTER_COMMAND(70, add_analyze_command);
