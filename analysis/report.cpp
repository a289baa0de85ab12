#include "analysis/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/board_comparison.h"
#include "analysis/chart_labels.h"
#include "analysis/config_groups.h"
#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_choice.h"
#include "analysis/mode_predictions.h"
#include "analysis/narrow_spread.h"
#include "analysis/pareto.h"
#include "analysis/report_assets.h"
#include "analysis/report_batch.h"
#include "analysis/report_html.h"
#include "analysis/report_inference.h"
#include "analysis/report_phases.h"
#include "analysis/scaling.h"
#include "analysis/statistics.h"
#include "analysis/variability.h"

namespace jetchar::analysis {
namespace {

using nlohmann::json;

using report_html::ChartCanvases;
using report_html::escape;
using report_html::optional_json;
using report_html::table;

// What an inference configuration's energy is counted per: "sample" or "query".
std::string energy_per(const ConfigPoint& p) { return std::string(to_string(p.query_energy)); }

json pareto_section(const std::vector<ConfigPoint>& points) {
  json groups = json::array();
  // A fleet of several kinds (records with the axis "board", analysis/results_store_reader.h):
  // one front per kind, side by side.
  const bool kinds =
      std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return p.key.axes.count("board") > 0; });
  for (const ParetoGroup& g :
       pareto_groups(points, kinds ? std::vector<std::string>{"board"} : std::vector<std::string>{})) {
    std::set<std::size_t> front(g.front.begin(), g.front.end());
    const auto shown = varying_axes(g.points);
    std::vector<ConfigKey> keys;
    std::vector<double> times, energies;
    for (const ConfigPoint& p : g.points) {
      keys.push_back(p.key);
      times.push_back(p.time_s);
      energies.push_back(*p.energy_j);
    }
    // The chart prints the front's points' short labels beside them (report.js).
    const auto short_labels = chart_labels(keys);
    json rows = json::array();
    for (std::size_t i = 0; i < g.points.size(); ++i) {
      const ConfigPoint& p = g.points[i];
      rows.push_back({{"mode", p.key.mode.label()},
                      {"axes", axes_label(p.key, shown)},
                      {"short", short_labels[i]},
                      {"time_s", p.time_s},
                      {"energy_j", *p.energy_j},
                      {"power_w", optional_json(p.power_w)},
                      {"front", front.count(i) > 0},
                      {"samples", p.samples}});
    }
    // An inference group's time is a query's latency (ConfigPoint::query_latency), drawn in ms.
    const auto& latency = g.query_latency;
    const std::string times_name =
        latency ? fmt::format("{} latencies", to_string(*latency)) : std::string("epoch times");
    groups.push_back(
        {{"label", g.label()},
         {"points", rows},
         {"time_title",
          latency ? fmt::format("{} latency of a query (s)", to_string(*latency)) : std::string("epoch time (s)")},
         {"energy_title",
          latency ? fmt::format("energy per {} (J)", energy_per(g.points.front())) : std::string("epoch energy (J)")},
         // Both axes fit their values (analysis/narrow_spread.h): a narrow spread is said.
         {"time_note", narrow_spread_note(times, times_name, "s")},
         {"energy_note",
          narrow_spread_note(energies,
                             latency ? fmt::format("energies per {}", energy_per(g.points.front())) : "epoch energies",
                             "J")}});
  }
  return groups;
}

// Stall vs compute per worker count and medium: for each workload, the power mode measured with
// the most (workers, medium) settings, so the bars differ only in the data path.
json stall_section(const std::vector<ConfigPoint>& points) {
  std::map<std::string, std::map<PowerMode, std::vector<const ConfigPoint*>>> by_workload;
  for (const ConfigPoint& p : points) {
    if (p.stall_s && p.compute_s) by_workload[p.key.workload][p.key.mode].push_back(&p);
  }
  json groups = json::array();
  for (const auto& [workload, modes] : by_workload) {
    // Most settings first; among those, the fastest mode (the one a user would run).
    auto fastest = [](const std::vector<const ConfigPoint*>& v) {
      double t = v.front()->time_s;
      for (const ConfigPoint* p : v) t = std::min(t, p->time_s);
      return t;
    };
    const auto best = std::max_element(modes.begin(), modes.end(), [&](const auto& a, const auto& b) {
      if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
      return fastest(a.second) > fastest(b.second);
    });
    std::vector<const ConfigPoint*> members = best->second;
    auto setting = [](const ConfigPoint& p) {
      std::string out;
      for (const char* axis : {"workers", "medium", "cache", "batch"}) {
        auto it = p.key.axes.find(axis);
        if (it != p.key.axes.end()) out += (out.empty() ? "" : " ") + std::string(axis) + "=" + it->second;
      }
      return out.empty() ? p.key.axes_label() : out;
    };
    std::sort(members.begin(), members.end(), [&](const ConfigPoint* a, const ConfigPoint* b) {
      auto wa = a->key.axes.count("workers") ? a->key.axes.at("workers") : "",
           wb = b->key.axes.count("workers") ? b->key.axes.at("workers") : "";
      if (wa.size() != wb.size()) return wa.size() < wb.size();  // numeric order for integers
      return std::tie(wa, a->key.axes) < std::tie(wb, b->key.axes);
    });
    json rows = json::array();
    for (const ConfigPoint* p : members) {
      rows.push_back(
          {{"setting", setting(*p)}, {"stall_s", *p->stall_s}, {"compute_s", *p->compute_s}, {"time_s", p->time_s}});
    }
    groups.push_back({{"label", workload + " | " + best->first.label()}, {"rows", rows}});
  }
  return groups;
}

json prediction_section(const std::vector<ConfigPoint>& points, ModelKind kind) {
  json groups = json::array();
  for (const ModeGroup& g : mode_groups(points)) {
    if (g.points.size() < TimeEnergyModel::coefficient_count(kind) + 1) continue;
    Validation v = cross_validate(kind, g.points);
    json rows = json::array();
    std::vector<double> times;
    for (const auto& r : v.loo) {
      times.push_back(r.measured_time_s);
      times.push_back(r.predicted_time_s);
      rows.push_back({{"mode", r.mode.label()},
                      {"measured_time_s", r.measured_time_s},
                      {"predicted_time_s", r.predicted_time_s},
                      {"measured_energy_j", optional_json(r.measured_energy_j)},
                      {"predicted_energy_j", optional_json(r.predicted_energy_j)}});
    }
    groups.push_back(
        {{"label", g.label()},
         {"time_title", g.query_latency ? fmt::format("{} latency of a query (s)", to_string(*g.query_latency))
                                        : std::string("epoch time (s)")},
         {"time_note", narrow_spread_note(times, "measured and predicted times", "s")},
         {"model", to_string(kind)},
         {"loo_time_mape", optional_json(v.loo_time_mape)},
         {"loo_energy_mape", optional_json(v.loo_energy_mape)},
         {"kfold_time_mape", optional_json(v.kfold_time_mape)},
         {"rows", rows}});
  }
  return groups;
}

// The predicted-modes page: per sweep, every mode's prediction with its interval beside what was
// measured where it was profiled, and the predicted Pareto front over all of them
// (analysis/mode_predictions.h).
json mode_predictions_section(const std::vector<StoredModePrediction>& predictions,
                              const std::vector<StoredModeChoice>& choices) {
  const auto fronts = predicted_pareto_fronts(predictions);
  const auto plane = front_points_by_prediction(fronts, predictions.size());
  json groups = json::array();
  std::map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    const StoredModePrediction& p = predictions[i];
    auto [it, added] = group_of.try_emplace(p.sweep, groups.size());
    if (added) {
      groups.push_back({{"label", "sweep " + p.sweep},
                        {"level", p.level},
                        {"time_form", p.time_form},
                        {"power_form", p.power_form},
                        {"modelled", p.modelled},
                        {"modes", 0},
                        {"profiled", 0},
                        {"rows", json::array()},
                        {"points", json::array()},
                        {"front", json::array()},
                        {"choice", nullptr}});
      for (const StoredModeChoice& c : choices) {
        if (c.sweep == p.sweep) groups.back()["choice"] = mode_choice_json(c);
      }
    }
    json& group = groups[it->second];
    group["modes"] = group["modes"].get<std::size_t>() + 1;
    if (p.profiled) group["profiled"] = group["profiled"].get<std::size_t>() + 1;
    const auto bound = [](const std::optional<Interval>& v, double Interval::*field) {
      return v ? json((*v).*field) : json(nullptr);
    };
    const PredictedFrontPoint* at = plane[i];
    group["rows"].push_back({{"mode", p.mode.label()},
                             {"status", p.profiled ? "profiled" : "predicted"},
                             {"measured_time_s", optional_json(p.measured_time_s)},
                             {"time_s", p.time_s.value},
                             {"time_low_s", p.time_s.low},
                             {"time_high_s", p.time_s.high},
                             {"measured_power_w", optional_json(p.measured_power_w)},
                             {"power_w", bound(p.power_w, &Interval::value)},
                             {"power_low_w", bound(p.power_w, &Interval::low)},
                             {"power_high_w", bound(p.power_w, &Interval::high)},
                             {"energy_j", bound(p.energy_j, &Interval::value)},
                             {"energy_low_j", bound(p.energy_j, &Interval::low)},
                             {"energy_high_j", bound(p.energy_j, &Interval::high)},
                             {"front", at == nullptr         ? json(nullptr)
                                       : at->on_front        ? json("yes")
                                       : at->may_be_on_front ? json("maybe")
                                                             : json("no")}});
  }
  for (const PredictedParetoFront& f : fronts) {
    json& group = groups[group_of.at(f.sweep)];
    std::size_t maybe = 0;
    std::vector<double> times, energies;
    std::vector<ConfigKey> modes;
    const std::size_t first = group["points"].size();
    for (const PredictedFrontPoint& p : f.points) {
      maybe += p.may_be_on_front && !p.on_front;
      group["points"].push_back(predicted_front_point_json(p, predictions[p.prediction], true));
      times.push_back(p.time_s);
      energies.push_back(p.energy_j);
      modes.push_back({"", predictions[p.prediction].mode, {}});
    }
    const auto short_labels = chart_labels(modes);
    for (std::size_t i = 0; i < short_labels.size(); ++i) group["points"][first + i]["short"] = short_labels[i];
    group["time_note"] = narrow_spread_note(times, "epoch times", "s");
    group["energy_note"] = narrow_spread_note(energies, "epoch energies", "J");
    for (std::size_t i : f.front) group["front"].push_back(group["points"][i]);
    group["measured_on_front"] = f.measured_on_front;
    group["predicted_on_front"] = f.predicted_on_front;
    group["may_be_on_front"] = maybe;
  }
  return groups;
}

// The medians of each latency column, throughput and J/query of the configurations that have
// latencies (inference ones).
json latency_section(const std::vector<ConfigPoint>& points) {
  std::vector<ConfigPoint> queries;
  std::copy_if(points.begin(), points.end(), std::back_inserter(queries),
               [](const ConfigPoint& p) { return p.latency.any(); });
  const auto shown = varying_axes(queries);
  json rows = json::array();
  for (const ConfigPoint& p : queries) {
    rows.push_back({{"config", config_label(p.key, shown)},
                    {"avg", optional_json(p.latency.avg)},
                    {"p50", optional_json(p.latency.p50)},
                    {"p90", optional_json(p.latency.p90)},
                    {"p95", optional_json(p.latency.p95)},
                    {"p99", optional_json(p.latency.p99)},
                    {"max", optional_json(p.latency.max)},
                    {"throughput", optional_json(p.throughput_samples_per_s)},
                    {"energy_per_query_j", optional_json(p.query_latency ? p.energy_j : std::nullopt)}});
  }
  return rows;
}

// How sure a pick is: the repetitions behind a configuration's median time, their CV and the
// bootstrap interval of that median (the row `analyze stats` prints for it; null with one run).
// Where one configuration ran on several devices, the device with the most repetitions.
using Spread = std::map<ConfigKey, VariabilityRow>;

Spread spread_of(const std::vector<RunRecord>& records, LatencyPercentile latency) {
  Spread spread;
  for (VariabilityRow& r : variability(records, VariabilityLevel::kRepetitions, {}, latency)) {
    const auto found = spread.find(r.key);
    if (found == spread.end() || found->second.time_s.n < r.time_s.n) spread.insert_or_assign(r.key, std::move(r));
  }
  return spread;
}

// One configuration as "What to pick" names it: its mode and axes, figures in their units, and how
// sure they are.
json pick_json(const ConfigPoint& p, const std::set<std::string>& shown, const Spread& spread) {
  const auto found = spread.find(p.key);
  const VariabilityRow* row = found == spread.end() ? nullptr : &found->second;
  const double scale = p.query_latency ? 1000 : 1;  // as time_value(): a query's latency in ms
  return json{{"mode", p.key.mode.label()},
              {"axes", axes_label(p.key, shown)},
              {"time", time_value(p)},
              {"time_unit", p.query_latency ? "ms" : "s"},
              {"time_name",
               p.query_latency ? fmt::format("{} latency", to_string(*p.query_latency)) : std::string("epoch time")},
              {"energy_j", *p.energy_j},
              {"energy_unit", p.query_latency ? "J per " + energy_per(p) : std::string("J per epoch")},
              {"power_w", optional_json(p.power_w)},
              {"samples", p.samples},
              {"runs", row ? json(row->time_s.n) : json(nullptr)},
              {"cv_pct", row && row->time_s.cv ? json(100 * *row->time_s.cv) : json(nullptr)},
              {"ci_low", row && row->time_median_ci ? json(scale * row->time_median_ci->low) : json(nullptr)},
              {"ci_high", row && row->time_median_ci ? json(scale * row->time_median_ci->high) : json(nullptr)},
              {"ci_level_pct", row && row->time_median_ci ? json(100 * row->time_median_ci->level) : json(nullptr)}};
}

// The budgets that judge a group: --max-time training, --max-latency inference, --max-power both.
struct GroupBudgets {
  std::optional<double> time_s;  ///< epoch time or query latency, in seconds
  std::optional<double> power_w;
  bool any() const { return time_s || power_w; }
};

GroupBudgets budgets_of(const ConfigGroup& g, const ReportBudgets& budgets) {
  return {g.query_latency ? budgets.max_latency_s : budgets.max_time_s, budgets.max_power_w};
}

// The budgets in words, in the units the figures are shown in: "epoch time <= 0.5 s and power <= 15 W".
json budget_json(const ConfigGroup& g, const GroupBudgets& b) {
  std::vector<std::string> parts;
  if (b.time_s) {
    parts.push_back(g.query_latency
                        ? fmt::format("{} latency <= {:g} ms", to_string(*g.query_latency), 1000 * *b.time_s)
                        : fmt::format("epoch time <= {:g} s", *b.time_s));
  }
  if (b.power_w) parts.push_back(fmt::format("power <= {:g} W", *b.power_w));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// The least-energy configuration of each group within the budgets: analysis::choose_per_group, as
// `analyze choose` (least energy under a time or latency budget; without one, under no time limit).
// A power budget is a second condition on the same choice: the points drawing more, or whose
// power is unknown, are left out before choosing. Keyed by the group's label.
std::map<std::string, ConfigPoint> choices_within(const std::vector<ConfigPoint>& points,
                                                  const std::vector<std::string>& per, const ReportBudgets& budgets) {
  std::vector<ConfigPoint> allowed;
  std::copy_if(points.begin(), points.end(), std::back_inserter(allowed), [&](const ConfigPoint& p) {
    return p.energy_j && (!budgets.max_power_w || (p.power_w && *p.power_w <= *budgets.max_power_w));
  });
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  std::map<std::string, ConfigPoint> chosen;
  const auto choose_with = [&](Budget::Kind kind, const std::optional<double>& limit) {
    if (!limit && !budgets.max_power_w) return;
    for (const GroupChoice& c : choose_per_group(allowed, per, Budget{kind, limit.value_or(kNoLimit)})) {
      if (c.choice) chosen.emplace(c.group.label(), c.group.points[c.choice->index]);
    }
  };
  choose_with(Budget::Kind::kMaxTime, budgets.max_time_s);
  choose_with(Budget::Kind::kMaxLatency, budgets.max_latency_s);
  return chosen;
}

// When no configuration meets the budgets: the one that misses them by the least (the largest of
// its figure / budget ratios is the smallest; then less energy). Null when none can be judged (a
// power budget and no measured power).
json closest_json(const ConfigGroup& g, const GroupBudgets& b, const std::set<std::string>& shown,
                  const Spread& spread) {
  const ConfigPoint* closest = nullptr;
  double closest_ratio = 0;
  for (const ConfigPoint& p : g.points) {
    double ratio = 0;
    if (b.time_s) ratio = std::max(ratio, *b.time_s > 0 ? p.time_s / *b.time_s : std::numeric_limits<double>::max());
    if (b.power_w) {
      if (!p.power_w) continue;
      ratio = std::max(ratio, *b.power_w > 0 ? *p.power_w / *b.power_w : std::numeric_limits<double>::max());
    }
    if (!closest || std::tie(ratio, *p.energy_j) < std::tie(closest_ratio, *closest->energy_j)) {
      closest = &p;
      closest_ratio = ratio;
    }
  }
  if (!closest) return nullptr;
  json pick = pick_json(*closest, shown, spread);
  // By how much it misses each budget it misses, in %.
  const auto over = [](double value, double limit) {
    return limit > 0 ? json(100 * (value / limit - 1)) : json(nullptr);
  };
  pick["time_over_pct"] = b.time_s && closest->time_s > *b.time_s ? over(closest->time_s, *b.time_s) : json(nullptr);
  pick["power_over_pct"] =
      b.power_w && *closest->power_w > *b.power_w ? over(*closest->power_w, *b.power_w) : json(nullptr);
  return pick;
}

// The answer first: per Pareto group, the configuration with the least energy and the fastest one,
// each with how many samples its medians rest on and how much its repetitions vary (CV of the
// median time across repetitions, the interval of that median; null with one run); with budgets,
// the least-energy configuration within them, or the one closest to them when none is.
json recommendation_section(const std::vector<ConfigPoint>& points, const std::vector<RunRecord>& records,
                            LatencyPercentile latency, const ReportBudgets& budgets) {
  const Spread spread = spread_of(records, latency);
  json groups = json::array();
  const bool kinds =
      std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return p.key.axes.count("board") > 0; });
  const std::vector<std::string> per = kinds ? std::vector<std::string>{"board"} : std::vector<std::string>{};
  const auto within = budgets.any() ? choices_within(points, per, budgets) : std::map<std::string, ConfigPoint>{};
  for (const ParetoGroup& g : pareto_groups(points, per)) {
    const auto shown = varying_axes(g.points);
    const auto least_energy = std::min_element(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) {
      return std::tie(*a.energy_j, a.time_s) < std::tie(*b.energy_j, b.time_s);
    });
    const auto fastest = std::min_element(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) {
      return std::tie(a.time_s, *a.energy_j) < std::tie(b.time_s, *b.energy_j);
    });
    json group = {{"label", g.label()},
                  {"configurations", g.points.size()},
                  {"least_energy", pick_json(*least_energy, shown, spread)},
                  {"fastest", pick_json(*fastest, shown, spread)},
                  {"budget", nullptr}};
    if (const GroupBudgets b = budgets_of(g, budgets); b.any()) {
      const auto chosen = within.find(g.label());
      std::size_t meeting = 0;
      for (const ConfigPoint& p : g.points) {
        meeting += (!b.time_s || p.time_s <= *b.time_s) && (!b.power_w || (p.power_w && *p.power_w <= *b.power_w));
      }
      group["budget"] = {{"budget", budget_json(g, b)},
                         {"meeting", meeting},
                         {"pick", chosen == within.end() ? json(nullptr) : pick_json(chosen->second, shown, spread)},
                         {"closest", chosen == within.end() ? closest_json(g, b, shown, spread) : json(nullptr)}};
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// The axes worth printing beside the rows' configurations (those that tell them apart).
std::set<std::string> shown_axes(const std::vector<VariabilityRow>& rows) {
  std::vector<ConfigKey> keys;
  for (const auto& r : rows) keys.push_back(r.key);
  return varying_axes(keys);
}

json stats_section(const std::vector<RunRecord>& records) {
  json rows = json::array();
  const auto variability_rows = variability(records, VariabilityLevel::kRepetitions);
  const auto shown = shown_axes(variability_rows);
  for (const VariabilityRow& r : variability_rows) {
    rows.push_back(
        {{"config", config_label(r.key, shown)},
         {"measure", r.query_latency ? fmt::format("{} latency of a query; J/query", to_string(*r.query_latency))
                                     : std::string("epoch time; J")},
         {"group", r.group},
         {"n", r.time_s.n},
         {"median_s", r.time_s.median},
         {"mean_s", r.time_s.mean},
         {"cv_pct", r.time_s.cv ? json(100 * *r.time_s.cv) : json(nullptr)},
         {"olympic_s", optional_json(r.time_s.olympic_mean)},
         {"ci_low_s", r.time_median_ci ? json(r.time_median_ci->low) : json(nullptr)},
         {"ci_high_s", r.time_median_ci ? json(r.time_median_ci->high) : json(nullptr)},
         {"energy_median_j", r.energy_j ? json(r.energy_j->median) : json(nullptr)}});
  }
  return rows;
}

// The fleet page: the boards (devices) behind the records, with their kind and runs, and how much
// one configuration varies across the boards of one kind (per-device medians: the study found
// little variability across instances of one kind and much across software versions). Null
// when the records come from one board.
json fleet_section(const std::vector<RunRecord>& records) {
  struct Device {
    std::string kind;
    std::set<std::string> runs;
    std::set<std::string> ok_runs;
  };
  std::map<std::string, Device> devices;
  for (const RunRecord& r : records) {
    if (!r.device) continue;
    Device& d = devices[*r.device];
    if (const auto kind = r.axes.find("board"); kind != r.axes.end()) d.kind = kind->second;
    const std::string run = r.run_id.value_or(r.source);
    d.runs.insert(run);
    if (r.status == RunStatus::kOk) d.ok_runs.insert(run);
  }
  if (devices.size() < 2) return nullptr;
  json boards = json::array();
  for (const auto& [id, d] : devices) {
    boards.push_back({{"device", id}, {"kind", d.kind}, {"runs", d.runs.size()}, {"ok", d.ok_runs.size()}});
  }
  json spread = json::array();
  const auto device_rows = variability(records, VariabilityLevel::kDevices);
  const auto shown = shown_axes(device_rows);
  for (const VariabilityRow& r : device_rows) {
    if (r.time_s.n < 2) continue;
    spread.push_back({{"config", config_label(r.key, shown)},
                      {"n", r.time_s.n},
                      {"median_s", r.time_s.median},
                      {"cv_pct", r.time_s.cv ? json(100 * *r.time_s.cv) : json(nullptr)},
                      {"min_s", r.time_s.min},
                      {"max_s", r.time_s.max},
                      {"energy_median_j", r.energy_j ? json(r.energy_j->median) : json(nullptr)},
                      {"energy_cv_pct", r.energy_j && r.energy_j->cv ? json(100 * *r.energy_j->cv) : json(nullptr)}});
  }
  return {{"boards", boards}, {"variability", spread}};
}

// The board kinds the records name (board_kind_of), in order.
std::set<std::string> board_kinds(const std::vector<RunRecord>& records) {
  std::set<std::string> kinds;
  for (const RunRecord& r : records) kinds.insert(board_kind_of(r));
  return kinds;
}

// The comparison page of several results: the figures `analyze compare` prints
// (analysis/board_comparison.h), per configuration measured on two or more board kinds.
json comparison_section(const std::vector<RunRecord>& records, const ReportOptions& options) {
  ComparisonOptions compare;
  compare.baseline = options.baseline;
  const auto comparisons = compare_boards(records, compare);
  const auto kinds = board_kinds(records);
  std::vector<ConfigKey> keys;
  for (const BoardComparison& c : comparisons) keys.push_back(c.key);
  const auto shown = varying_axes(keys);
  json configurations = json::array();
  for (const BoardComparison& c : comparisons) {
    const ConfigPoint& any = c.kinds.front().fastest;
    const std::string axes = axes_label(c.key, shown);
    json rows = json::array();
    for (const KindFigures& f : c.kinds) {
      rows.push_back({{"kind", f.kind},
                      {"modes", f.modes},
                      {"fastest_mode", f.fastest.key.mode.label()},
                      {"time", time_value(f.fastest)},
                      {"speedup", f.speedup},
                      {"least_energy_mode", f.least_energy.key.mode.label()},
                      {"energy_j", optional_json(f.least_energy.energy_j)},
                      {"energy_ratio", optional_json(f.energy_ratio)},
                      {"perf_per_watt_ratio", optional_json(f.perf_per_watt_ratio)}});
    }
    configurations.push_back(
        {{"label", c.key.workload + (axes.empty() ? "" : " | " + axes)},
         {"baseline", c.kinds.front().kind},
         {"time_title", any.query_latency ? fmt::format("{} latency of a query (ms)", to_string(*any.query_latency))
                                          : std::string("epoch time (s)")},
         {"time_unit", any.query_latency ? "ms" : "s"},
         {"energy_title", any.query_latency ? "energy per query (J)" : "epoch energy (J)"},
         {"rows", rows}});
  }
  return {{"kinds", kinds}, {"configurations", configurations}};
}

// The scaling page: each training configuration measured at several world sizes (data-parallel
// ranks), as `analyze scaling` prints it (analysis/scaling.h).
json scaling_section(const std::vector<RunRecord>& records) {
  const auto curves = scaling_curves(records);
  std::vector<ConfigKey> keys;
  for (const ScalingCurve& c : curves) keys.push_back(c.key);
  const auto shown = varying_axes(keys);
  json out = json::array();
  for (const ScalingCurve& c : curves) {
    const std::string axes = axes_label(c.key, shown);
    json points = json::array();
    for (const ScalingPoint& p : c.points) {
      points.push_back({{"ranks", p.world_size},
                        {"samples_per_s", p.samples_per_s},
                        {"ideal_samples_per_s", c.points.front().samples_per_s * static_cast<double>(p.world_size) /
                                                    static_cast<double>(c.points.front().world_size)},
                        {"efficiency", p.efficiency},
                        {"energy_per_sample_j", optional_json(p.energy_per_sample_j)},
                        {"exposed_percent", p.exposed_share ? json(*p.exposed_share * 100) : json(nullptr)},
                        {"epochs", p.epochs}});
    }
    out.push_back(
        {{"label", fmt::format("{} | {}{}", c.key.workload, c.key.mode.label(), axes.empty() ? "" : " | " + axes)},
         {"scaling", to_string(c.kind)},
         {"points", points}});
  }
  return out;
}

// JSON inside <script>: '<' only occurs inside strings, where \u003c means the same and cannot
// close the element.
std::string script_safe(const std::string& json_text) {
  std::string out;
  for (char c : json_text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

}  // namespace

json report_data(const std::vector<RunRecord>& given, const ReportOptions& options) {
  // Several results of two or more board kinds: each run's kind is its axis "board", so fronts and
  // picks are per kind (one kind's power mode is not another's), as in a merged fleet.
  // The meter's energy in place of the board's (throws when no run has one), on a copy.
  std::vector<RunRecord> tagged;
  const bool several_kinds = options.several_results && board_kinds(given).size() > 1;
  if (several_kinds || options.energy != EnergySource::kBoard) {
    tagged = given;
    use_energy_source(tagged, options.energy);
    if (several_kinds) {
      for (RunRecord& r : tagged) r.axes["board"] = board_kind_of(r);
    }
  }
  const std::vector<RunRecord>& records = tagged.empty() ? given : tagged;
  auto points = aggregate(records);
  // The front and the picks judge inference configurations by energy per sample, so that batch
  // sizes compare fairly (a batch of 8 spends more per query and less per sample than a batch of
  // 1), where every run with a J/query has it (exports older than the column have J/query only).
  const bool per_sample = std::all_of(records.begin(), records.end(), [](const RunRecord& r) {
    return !energy_per_query_j(r) || energy_per_query_sample_j(r);
  });
  const auto judged = per_sample ? aggregate(records, {.energy = QueryEnergy::kPerSample}) : points;
  std::map<std::string, std::size_t> statuses;
  for (const RunRecord& r : records) ++statuses[std::string(to_string(r.status))];
  const auto simulated = std::count_if(records.begin(), records.end(), [](const RunRecord& r) { return r.simulated; });
  json data = {{"title", options.title},      {"source", options.source}, {"rows", records.size()},
               {"simulated_rows", simulated}, {"statuses", statuses},     {"configurations", points.size()}};
  // What the medians are over, said in the header for the kinds of runs present.
  data["training"] = std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return !p.query_latency; });
  data["inference_energy_per"] = json(nullptr);
  if (const auto query =
          std::find_if(judged.begin(), judged.end(), [](const ConfigPoint& p) { return p.query_latency; });
      query != judged.end()) {
    data["inference_energy_per"] = energy_per(*query);
  }
  data["energy"] = {{"source", to_string(options.energy)},
                    {"from", energy_sources_text(energy_sources_by_kind(records, options.energy))}};
  data["pareto"] = pareto_section(judged);
  data["recommendation"] = recommendation_section(judged, records, LatencyPercentile::kP99, options.budgets);
  data["stall"] = stall_section(points);
  data["prediction"] = prediction_section(points, options.model);
  data["mode_predictions"] = mode_predictions_section(options.mode_predictions, options.mode_choices);
  data["latency"] = latency_section(points);
  data["inference"] = inference_section(points, records);
  data["batch"] = batch_section(records);
  data["stats"] = stats_section(records);
  data["fleet"] = fleet_section(records);
  data["comparison"] = options.several_results ? comparison_section(records, options) : json(nullptr);
  data["scaling"] = scaling_section(records);
  data["phases"] = phases_section(records, options.phase_steps);
  json trace = nullptr;
  if (options.trace) {
    json samples = json::array(), markers = json::array();
    for (const TraceSample& s : *options.trace) {
      samples.push_back({s.t_s, s.power_w});
      if (s.marker) markers.push_back({{"t_s", s.t_s}, {"label", *s.marker}, {"power_w", s.power_w}});
    }
    trace = {{"samples", samples}, {"markers", markers}, {"caption", options.trace_caption}};
  }
  data["trace"] = trace;
  return data;
}

namespace {

// The HTML of each report section, rendered from report_data()'s JSON.
std::string header_html(const json& data, const ReportOptions& options) {
  std::string status_line;
  for (const auto& [status, count] : data["statuses"].items()) {
    status_line += fmt::format("{}{} {}", status_line.empty() ? "" : ", ", count.get<std::size_t>(), status);
  }
  const auto simulated = data["simulated_rows"].get<std::size_t>();
  const std::string simulated_line =
      simulated == 0 ? std::string()
                     : fmt::format(
                           "<p class=\"simulated\"><strong>SIMULATED</strong>: {} of {} rows come from a "
                           "simulated board; its power figures, and its times where its time model paced "
                           "them, are modelled, not measured on a Jetson.</p>",
                           simulated, data["rows"].get<std::size_t>());
  const std::string energy_line =
      fmt::format("<p class=\"energy\">Energy: {} ({}).</p>",
                  data["energy"]["source"] == "meter" ? "the external meter each run's spec configured"
                                                      : "each board's own sensors",
                  escape(data["energy"]["from"].get<std::string>()));
  std::string medians;
  if (data["training"].get<bool>()) {
    medians +=
        "<p>Epoch times and energies are medians over warm epochs: every epoch after epoch 0, which runs on a cold "
        "cache (epoch 0 only where a configuration has no other), as in <code>jetchar results list</code> and "
        "<code>jetchar analyze</code>.</p>";
  }
  if (!data["inference_energy_per"].is_null()) {
    medians += fmt::format(
        "<p>An inference configuration's latencies, throughput and energy are medians over its runs (the queries "
        "after warm-up); the Pareto front and the picks judge it by the p99 latency of a query and the energy per "
        "{}.</p>",
        data["inference_energy_per"].get<std::string>());
  }
  return fmt::format("<header><h1>{}</h1><p>{} — {} rows ({}), {} configurations.</p>{}{}{}</header>\n",
                     escape(options.title), escape(options.source), data["rows"].get<std::size_t>(),
                     escape(status_line), data["configurations"].get<std::size_t>(), simulated_line, energy_line,
                     medians);
}

// A pick's figures in words: mode and axes, time and energy (and power), and how sure they are.
std::string pick_figures(const json& p) {
  const std::string axes = p["axes"].get<std::string>();
  const std::string unit = p["time_unit"].get<std::string>();
  std::string spread = p["cv_pct"].is_null() ? std::string("one run, so no spread")
                                             : fmt::format("CV {:.1f} % across repetitions", p["cv_pct"].get<double>());
  if (!p["ci_low"].is_null()) {
    spread += fmt::format(", {:.0f} % interval of the median {:.4g}–{:.4g} {} (bootstrap over {} runs)",
                          p["ci_level_pct"].get<double>(), p["ci_low"].get<double>(), p["ci_high"].get<double>(), unit,
                          p["runs"].get<std::size_t>());
  }
  const auto samples = p["samples"].get<std::size_t>();
  return fmt::format("<strong>{}</strong>{}: {:.4g} {} and {:.4g} {} (median of {} sample{}; {})",
                     escape(p["mode"].get<std::string>()), axes.empty() ? "" : " " + escape(axes),
                     p["time"].get<double>(), unit, p["energy_j"].get<double>(), p["energy_unit"].get<std::string>(),
                     samples, samples == 1 ? "" : "s", spread);
}

// "at 8.6 W" where a pick's power is known.
std::string at_power(const json& p) {
  return p["power_w"].is_null() ? std::string() : fmt::format(" at {:.3g} W", p["power_w"].get<double>());
}

// The budget's sentence of one group: the least-energy configuration within it, or plainly that
// none meets it and which comes closest, by how much it misses.
std::string budget_sentence(const json& g) {
  const json& b = g["budget"];
  const std::string label = escape(g["label"].get<std::string>());
  const std::string budget = escape(b["budget"].get<std::string>());
  const auto total = g["configurations"].get<std::size_t>();
  if (!b["pick"].is_null()) {
    return fmt::format(
        "<p class=\"answer\" data-answer=\"budget\">{} within {}: pick {}{}, the least energy of the {} of {} "
        "configurations that meet it.</p>\n",
        label, budget, pick_figures(b["pick"]), at_power(b["pick"]), b["meeting"].get<std::size_t>(), total);
  }
  const json& c = b["closest"];
  if (c.is_null()) {
    return fmt::format(
        "<p class=\"answer\" data-answer=\"budget\">{}: no configuration meets {}: none of the {} has a measured "
        "power to judge it by.</p>\n",
        label, budget, total);
  }
  std::vector<std::string> misses;
  if (!c["time_over_pct"].is_null()) {
    misses.push_back(
        fmt::format("{} {:.1f} % over", c["time_name"].get<std::string>(), c["time_over_pct"].get<double>()));
  }
  if (!c["power_over_pct"].is_null())
    misses.push_back(fmt::format("power {:.1f} % over", c["power_over_pct"].get<double>()));
  return fmt::format(
      "<p class=\"answer\" data-answer=\"budget\">{}: <strong>no configuration meets {}</strong> ({} measured). The "
      "closest is {}{} ({}).</p>\n",
      label, budget, total, pick_figures(c), at_power(c), fmt::join(misses, ", "));
}

// One sentence per group: what to pick for least energy and for least time, with the figures and
// what they rest on; with budgets, a second one for the least energy within them.
std::string recommendation_html(const json& recommendation) {
  if (recommendation.empty()) return "";
  std::string body = "<section id=\"recommendation\"><h2>What to pick</h2>\n";
  for (const json& g : recommendation) {
    body += fmt::format(
        "<p class=\"answer\" data-answer=\"pick\">{} ({} configurations): for the least energy pick {}; for the "
        "least time pick {}.</p>\n",
        escape(g["label"].get<std::string>()), g["configurations"].get<std::size_t>(), pick_figures(g["least_energy"]),
        pick_figures(g["fastest"]));
    if (!g["budget"].is_null()) body += budget_sentence(g);
  }
  return body + "</section>\n";
}

// The comparison page of several results: per configuration measured on two or more board kinds,
// each kind at its fastest and its least-energy mode against the baseline kind, in a sentence per
// kind, a chart and a table (the figures of `analyze compare`).
std::string comparison_html(const json& comparison, ChartCanvases& canvases) {
  if (comparison.is_null()) return "";
  std::string body = "<section id=\"comparison\"><h2>Board kinds side by side</h2>\n";
  std::vector<std::string> kinds;
  for (const json& k : comparison["kinds"]) kinds.push_back(escape(k.get<std::string>()));
  if (kinds.size() < 2) {
    return body + fmt::format("<p>These results measured one board kind ({}): nothing to compare.</p></section>\n",
                              fmt::join(kinds, ", "));
  }
  const json& configurations = comparison["configurations"];
  if (configurations.empty()) {
    return body + fmt::format(
                      "<p>No configuration was measured on two board kinds (kinds: {}); a comparison needs the "
                      "same workload and settings on each.</p></section>\n",
                      fmt::join(kinds, ", "));
  }
  body += fmt::format(
      "<p>{} board kinds ({}). Each kind at its fastest power mode (speed-up: the baseline's time / its time) and at "
      "its least-energy mode (energy: its energy / the baseline's, per epoch or per query, so per sample; perf/W: "
      "the inverse), as <code>jetchar analyze compare</code> prints them.</p>\n",
      kinds.size(), fmt::join(kinds, ", "));
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    const json& c = configurations[i];
    const std::string unit = c["time_unit"].get<std::string>();
    const json& base = c["rows"][0];
    body += fmt::format("<h3>{} (baseline {})</h3>\n", escape(c["label"].get<std::string>()),
                        escape(c["baseline"].get<std::string>()));
    for (std::size_t k = 1; k < c["rows"].size(); ++k) {
      const json& r = c["rows"][k];
      std::string energy;
      if (!r["energy_ratio"].is_null()) {
        energy = fmt::format(
            "; at its least-energy mode <strong>{}</strong> it takes {:.3g}× the baseline's energy per sample "
            "({:.4g} J against {:.4g} J at {}), {:.3g}× its performance per watt",
            escape(r["least_energy_mode"].get<std::string>()), r["energy_ratio"].get<double>(),
            r["energy_j"].get<double>(), base["energy_j"].get<double>(),
            escape(base["least_energy_mode"].get<std::string>()), r["perf_per_watt_ratio"].get<double>());
      }
      body += fmt::format(
          "<p class=\"answer\" data-answer=\"comparison\">{}: at its fastest mode <strong>{}</strong> {:.3g}× the "
          "baseline's speed ({:.4g} {} against {:.4g} {} at {}){}.</p>\n",
          escape(r["kind"].get<std::string>()), escape(r["fastest_mode"].get<std::string>()),
          r["speedup"].get<double>(), r["time"].get<double>(), unit, base["time"].get<double>(), unit,
          escape(base["fastest_mode"].get<std::string>()), energy);
    }
    body += canvases.next("comparison:" + std::to_string(i),
                          "Speed-up and performance per watt against the baseline kind (1 = the baseline)");
    body += "<details><summary>Table</summary>" +
            table(c["rows"],
                  {{"kind", "board kind"},
                   {"modes", "modes"},
                   {"fastest_mode", "fastest mode"},
                   {"time", c["time_title"].get<std::string>()},
                   {"speedup", "speed-up"},
                   {"least_energy_mode", "least-energy mode"},
                   {"energy_j", c["energy_title"].get<std::string>()},
                   {"energy_ratio", "energy ×"},
                   {"perf_per_watt_ratio", "perf/W ×"}},
                  fmt::format("table-comparison-{}", i)) +
            "</details>\n";
  }
  return body + "</section>\n";
}

std::string scaling_html(const json& scaling, ChartCanvases& canvases) {
  if (scaling.empty()) return "";
  std::string body =
      "<section id=\"scaling\"><h2>Data-parallel scaling</h2><p>Training configurations measured at several world "
      "sizes (ranks = nproc_per_node × nnodes): samples/s against the ideal (the smallest world's per rank, times the "
      "ranks), scaling efficiency and energy per sample; weak scaling keeps the batch per rank, strong the global "
      "batch. Medians over warm epochs, as <code>jetchar analyze scaling</code> prints them.</p>\n";
  for (std::size_t i = 0; i < scaling.size(); ++i) {
    const json& curve = scaling[i];
    const json& last = curve["points"].back();
    body += fmt::format("<h3>{} ({} scaling)</h3>\n", escape(curve["label"].get<std::string>()),
                        escape(curve["scaling"].get<std::string>()));
    body += fmt::format(
        "<p class=\"answer\" data-answer=\"scaling\">At {} ranks: {:.4g} samples/s, {:.0f} % of ideal "
        "scaling{}.</p>\n",
        last["ranks"].get<std::int64_t>(), last["samples_per_s"].get<double>(), last["efficiency"].get<double>() * 100,
        last["energy_per_sample_j"].is_null()
            ? std::string()
            : fmt::format(", {:.4g} J per sample", last["energy_per_sample_j"].get<double>()));
    body += canvases.next("scaling:" + std::to_string(i), "Samples/s against the ideal, and efficiency, per ranks");
    body += "<details><summary>Table</summary>" +
            table(curve["points"],
                  {{"ranks", "ranks"},
                   {"samples_per_s", "samples/s"},
                   {"ideal_samples_per_s", "ideal samples/s"},
                   {"efficiency", "efficiency"},
                   {"energy_per_sample_j", "J/sample"},
                   {"exposed_percent", "exposed communication (%)"},
                   {"epochs", "epochs"}},
                  fmt::format("table-scaling-{}", i)) +
            "</details>\n";
  }
  return body + "</section>\n";
}

// What a chart's caption adds for its axes of a narrow spread (analysis/narrow_spread.h): ". Note:
// epoch times span 8.3 % (0.121–0.131 s); the axis fits them, which stretches the difference";
// "" when neither is narrow.
std::string spread_caption(const json& group) {
  std::vector<std::string> notes;
  for (const char* key : {"time_note", "energy_note"}) {
    if (group.contains(key) && !group[key].get<std::string>().empty()) notes.push_back(group[key]);
  }
  if (notes.empty()) return "";
  return fmt::format(". Note: {}; {} fits them, which stretches the difference", fmt::join(notes, " and "),
                     notes.size() == 1 ? "the axis" : "each axis");
}

std::string pareto_html(const json& pareto, bool training, ChartCanvases& canvases) {
  if (pareto.empty()) return "";
  std::string body = fmt::format(
      "<section id=\"pareto\"><h2>Time vs energy per power mode</h2><p>Each point is one configuration (median over "
      "{}repetitions and devices); the line joins the Pareto front: no other configuration is both faster and "
      "cheaper.</p>\n",
      training ? "warm epochs, " : "");
  for (std::size_t g = 0; g < pareto.size(); ++g) {
    const json& group = pareto[g];
    body += fmt::format("<h3>{}</h3>", escape(group["label"].get<std::string>()));
    const std::string time_title = group["time_title"], energy_title = group["energy_title"];
    body += canvases.next("pareto:" + std::to_string(g),
                          fmt::format("{} vs {}; the Pareto front joined, its points labelled (a label that would "
                                      "cover another is left out: the table names every point){}",
                                      time_title, energy_title, spread_caption(group)));
    body += "<details><summary>Table</summary>" +
            table(group["points"],
                  {{"mode", "power mode"},
                   {"axes", "axes"},
                   {"time_s", time_title},
                   {"energy_j", energy_title},
                   {"power_w", "power (W)"},
                   {"front", "on front"},
                   {"samples", "samples"}},
                  fmt::format("table-pareto-{}", g)) +
            "</details>\n";
  }
  return body + "</section>\n";
}

std::string stall_html(const json& stall, ChartCanvases& canvases) {
  if (stall.empty()) return "";
  std::string body =
      "<section id=\"stall\"><h2>Fetch stall vs compute</h2><p>Per epoch, by data-loader workers and storage medium, "
      "in one power mode per workload.</p>\n";
  for (std::size_t g = 0; g < stall.size(); ++g) {
    const json& group = stall[g];
    body += fmt::format("<h3>{}</h3>", escape(group["label"].get<std::string>()));
    body += canvases.next("stall:" + std::to_string(g), "Stall and compute seconds per epoch");
    body +=
        "<details><summary>Table</summary>" +
        table(group["rows"],
              {{"setting", "setting"}, {"stall_s", "stall (s)"}, {"compute_s", "compute (s)"}, {"time_s", "epoch (s)"}},
              fmt::format("table-stall-{}", g)) +
        "</details>\n";
  }
  return body + "</section>\n";
}

std::string trace_html(const json& trace, const ReportOptions& options, ChartCanvases& canvases) {
  if (trace.is_null()) return "";
  std::string body = "<section id=\"trace\"><h2>Power over time</h2>\n";
  if (!options.trace_caption.empty()) body += "<p>" + escape(options.trace_caption) + "</p>\n";
  body += canvases.next("trace", "Power (W) over time (s); dashed lines mark phases");
  body += "<details><summary>Markers</summary>" +
          table(trace["markers"], {{"t_s", "t (s)"}, {"label", "phase"}, {"power_w", "power (W)"}}, "table-trace") +
          "</details>\n";
  return body + "</section>\n";
}

std::string prediction_html(const json& prediction, ModelKind model, ChartCanvases& canvases) {
  if (prediction.empty()) return "";
  std::string body = fmt::format(
      "<section id=\"prediction\"><h2>Predicted vs measured</h2><p>Model <code>{}</code>, each mode predicted by a "
      "fit that left it out (leave-one-out).</p>\n",
      to_string(model));
  auto pct = [](const json& v) { return v.is_null() ? std::string("–") : fmt::format("{:.2f} %", v.get<double>()); };
  for (std::size_t g = 0; g < prediction.size(); ++g) {
    const json& group = prediction[g];
    body += fmt::format("<h3>{}</h3><p>LOO MAPE: time {}, energy {}; 5-fold time {}.</p>",
                        escape(group["label"].get<std::string>()), pct(group["loo_time_mape"]),
                        pct(group["loo_energy_mape"]), pct(group["kfold_time_mape"]));
    body += canvases.next("prediction:" + std::to_string(g),
                          fmt::format("Predicted vs measured {}; the diagonal is a perfect prediction{}",
                                      group["time_title"].get<std::string>(), spread_caption(group)));
    body += "<details><summary>Table</summary>" +
            table(group["rows"],
                  {{"mode", "power mode"},
                   {"measured_time_s", "time (s)"},
                   {"predicted_time_s", "predicted (s)"},
                   {"measured_energy_j", "energy (J)"},
                   {"predicted_energy_j", "predicted (J)"}},
                  fmt::format("table-prediction-{}", g)) +
            "</details>\n";
  }
  return body + "</section>\n";
}

// The sentence naming the mode a sweep with an objective chose, with the figures
// `jetchar analyze predictions` prints on its choice line.
std::string mode_choice_html(const json& c) {
  if (c.is_null()) return "";
  const double confidence = 100 * c["confidence"].get<double>();
  const std::string budget = escape(c["budget"].get<std::string>());
  if (c["mode"].is_null()) {
    return fmt::format(
        "<p class=\"answer\" data-answer=\"predicted-choice\">Objective {}: no mode meets the budget at {:g} % "
        "confidence.</p>\n",
        budget, confidence);
  }
  return fmt::format(
      "<p class=\"answer\" data-answer=\"predicted-choice\">Objective {} at {:g} % confidence: pick "
      "<strong>{}</strong> ({}){}{}; {} of {} modes eligible (a predicted mode only where its interval's upper end "
      "meets the budget); expected regret {:.2f} %, probability {:.2f} that it is within 1 % of the best eligible "
      "mode.</p>\n",
      budget, confidence, escape(c["mode"].get<std::string>()), c["measured"].get<bool>() ? "measured" : "predicted",
      c["time_s"].is_null() ? std::string() : fmt::format(", epoch {:.3f} s", c["time_s"].get<double>()),
      c["energy_j"].is_null() ? std::string() : fmt::format(", {:.3g} J", c["energy_j"].get<double>()),
      c["eligible"].get<std::size_t>(), c["modes"].get<std::size_t>(),
      c["expected_regret_pct"].is_null() ? 0.0 : c["expected_regret_pct"].get<double>(),
      c["within_one_pct_probability"].is_null() ? 0.0 : c["within_one_pct_probability"].get<double>());
}

std::string mode_predictions_html(const json& groups, ChartCanvases& canvases) {
  if (groups.empty()) return "";
  std::string body =
      "<section id=\"mode-predictions\"><h2>Predicted power modes</h2><p>An adaptive_profile sweep profiled a few "
      "power modes and predicted the rest. Each row is a mode: its predicted epoch time, power and energy with the "
      "interval at the stated level, and the measured values where it was profiled. The chart places every mode on "
      "the time-energy plane, the profiled ones at their measured values and the others at their predictions, and "
      "joins the predicted Pareto front; a mode marked <em>maybe</em> is off that front but within its intervals of "
      "it.</p>\n";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const json& group = groups[g];
    body += fmt::format(
        "<h3>{}</h3><p>{} power modes, {} profiled; {:.0f} % intervals; forms {}/{}{}.</p>",
        escape(group["label"].get<std::string>()), group["modes"].get<std::size_t>(),
        group["profiled"].get<std::size_t>(), 100 * group["level"].get<double>(),
        escape(group["time_form"].get<std::string>()),
        escape(group["power_form"].get<std::string>().empty() ? "-" : group["power_form"].get<std::string>()),
        group["modelled"].get<bool>() ? "; times from the simulated board's time model (MODELLED)" : "");
    body += mode_choice_html(group["choice"]);
    if (!group["points"].empty()) {
      body += fmt::format(
          "<p>Predicted Pareto front: {} modes ({} measured, {} predicted); {} more may be on it within their "
          "intervals.</p>",
          group["front"].size(), group["measured_on_front"].get<std::size_t>(),
          group["predicted_on_front"].get<std::size_t>(), group["may_be_on_front"].get<std::size_t>());
      body += canvases.next("predicted-front:" + std::to_string(g),
                            "Epoch time (s) vs epoch energy (J) of every power mode: measured (profiled) filled, "
                            "predicted hollow, the predicted Pareto front joined with its intervals and labelled" +
                                spread_caption(group));
      body += "<details><summary>Pareto front</summary>" +
              table(group["front"],
                    {{"mode", "power mode"},
                     {"measured", "measured"},
                     {"time_s", "time (s)"},
                     {"time_low_s", "low"},
                     {"time_high_s", "high"},
                     {"energy_j", "energy (J)"},
                     {"energy_low_j", "low"},
                     {"energy_high_j", "high"}},
                    fmt::format("table-predicted-front-{}", g)) +
              "</details>\n";
    } else {
      body += "<p>No power was measured, so there is no energy to place the modes on a time-energy front.</p>\n";
    }
    body += "<details><summary>Every mode</summary>" +
            table(group["rows"],
                  {{"mode", "power mode"},
                   {"status", "status"},
                   {"measured_time_s", "measured time (s)"},
                   {"time_s", "time (s)"},
                   {"time_low_s", "low"},
                   {"time_high_s", "high"},
                   {"measured_power_w", "measured power (W)"},
                   {"power_w", "power (W)"},
                   {"power_low_w", "low"},
                   {"power_high_w", "high"},
                   {"energy_j", "energy (J)"},
                   {"energy_low_j", "low"},
                   {"energy_high_j", "high"},
                   {"front", "on front"}},
                  fmt::format("table-mode-predictions-{}", g)) +
            "</details>\n";
  }
  return body + "</section>\n";
}

std::string latency_html(const json& latency, ChartCanvases& canvases) {
  if (latency.empty()) return "";
  std::string body = "<section id=\"latency\"><h2>Inference latency distribution</h2>\n";
  body += canvases.next("latency", "Latency percentiles per configuration (ms)");
  body += table(latency,
                {{"config", "configuration"},
                 {"avg", "avg (ms)"},
                 {"p50", "p50"},
                 {"p90", "p90"},
                 {"p95", "p95"},
                 {"p99", "p99"},
                 {"max", "max"},
                 {"throughput", "samples/s"},
                 {"energy_per_query_j", "J/query"}},
                "table-latency");
  return body + "</section>\n";
}

std::string stats_html(const json& stats) {
  if (stats.empty()) return "";
  std::string body = "<section id=\"stats\"><h2>Variability across repetitions</h2>\n";
  body += table(stats,
                {{"config", "configuration"},
                 {"measure", "measured (s; energy)"},
                 {"group", "group"},
                 {"n", "runs"},
                 {"median_s", "median (s)"},
                 {"mean_s", "mean (s)"},
                 {"cv_pct", "CV (%)"},
                 {"olympic_s", "olympic mean (s)"},
                 {"ci_low_s", "95% CI low"},
                 {"ci_high_s", "95% CI high"},
                 {"energy_median_j", "energy (J)"}},
                "table-stats");
  return body + "</section>\n";
}

std::string fleet_html(const json& fleet) {
  if (fleet.is_null()) return "";
  std::string body =
      "<section id=\"fleet\"><h2>Fleet: boards and variability across instances</h2><p>Every physical board "
      "(device-tree serial number and module, or host) that ran part of these results. A configuration measured on "
      "several boards of one kind shows how much instances of that kind differ: the per-board medians' spread.</p>\n";
  body += table(fleet["boards"], {{"device", "board (device id)"}, {"kind", "kind"}, {"runs", "runs"}, {"ok", "OK"}},
                "table-fleet-boards");
  if (!fleet["variability"].empty()) {
    body += "<h3>Across boards of one kind</h3>" + table(fleet["variability"],
                                                         {{"config", "configuration"},
                                                          {"n", "boards"},
                                                          {"median_s", "median (s)"},
                                                          {"cv_pct", "CV (%)"},
                                                          {"min_s", "min (s)"},
                                                          {"max_s", "max (s)"},
                                                          {"energy_median_j", "energy (J)"},
                                                          {"energy_cv_pct", "energy CV (%)"}},
                                                         "table-fleet-variability");
  } else {
    body += "<p>No configuration was measured on more than one board of a kind.</p>\n";
  }
  return body + "</section>\n";
}

// The page around the sections: the stylesheet, the report's JSON for the charts, Chart.js and report.js.
std::string page_html(const std::string& title, const std::string& body, const json& data) {
  std::string html;
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += fmt::format("<title>{}</title>\n<style>{}</style>\n", escape(title), assets::kReportCss);
  html += "</head><body>\n" + body;
  html += "<script id=\"report-data\" type=\"application/json\">" + script_safe(data.dump()) + "</script>\n";
  html += "<script>/* Chart.js, MIT licence: see analysis/report/vendor/LICENSE-chart.js.md */\n";
  html += assets::kChartJs;
  html += "\n</script>\n<script>\n";
  html += assets::kReportJs;
  html += "\n</script>\n</body></html>\n";
  return html;
}

}  // namespace

std::string render_report(const std::vector<RunRecord>& records, const ReportOptions& options) {
  json data = report_data(records, options);
  ChartCanvases canvases;
  std::string body = header_html(data, options);
  body += recommendation_html(data["recommendation"]);
  body += comparison_html(data["comparison"], canvases);
  body += scaling_html(data["scaling"], canvases);
  body += phases_html(data["phases"], canvases);
  body += inference_html(data["inference"], canvases);
  body += pareto_html(data["pareto"], data["training"].get<bool>(), canvases);
  body += batch_html(data["batch"], canvases);
  body += stall_html(data["stall"], canvases);
  body += trace_html(data["trace"], options, canvases);
  body += prediction_html(data["prediction"], options.model, canvases);
  body += mode_predictions_html(data["mode_predictions"], canvases);
  body += latency_html(data["latency"], canvases);
  body += stats_html(data["stats"]);
  body += fleet_html(data["fleet"]);
  // Every section of a simulated board's figures says so in its heading, not only the header.
  if (data["simulated_rows"].get<std::size_t>() > 0) {
    const std::string mark = " <span class=\"simulated\">(SIMULATED)</span></h2>";
    for (auto at = body.find("</h2>"); at != std::string::npos; at = body.find("</h2>", at + mark.size()))
      body.replace(at, 5, mark);
  }
  return page_html(options.title, body, data);
}

}  // namespace jetchar::analysis
