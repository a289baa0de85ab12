#include "analysis/report_inference.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/chart_labels.h"
#include "analysis/config_groups.h"
#include "analysis/record_fields.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

using nlohmann::json;
using report_html::escape;
using report_html::optional_json;

constexpr const char* kBatch = "batch";
constexpr const char* kSequence = "sequence_length";

std::optional<std::string> axis_of(const ConfigKey& key, const char* name) {
  const auto it = key.axes.find(name);
  return it == key.axes.end() ? std::nullopt : std::optional<std::string>(it->second);
}

// Axis values in numeric order where they are numbers (batch 2 before batch 16).
bool value_less(const std::string& a, const std::string& b) {
  const auto x = parse_number(a), y = parse_number(b);
  if (x && y) return *x < *y;
  if (x.has_value() != y.has_value()) return x.has_value();
  return a < b;
}

// "batch 8 × 128 tokens", "batch 8", "128 tokens"; "" when the key has neither.
std::string config_words(const ConfigKey& key) {
  std::vector<std::string> parts;
  if (const auto batch = axis_of(key, kBatch)) parts.push_back("batch " + *batch);
  if (const auto sequence = axis_of(key, kSequence)) parts.push_back(*sequence + " tokens");
  return fmt::format("{}", fmt::join(parts, " × "));
}

std::string series_words(const char* axis, const std::string& value) {
  return std::string_view(axis) == kBatch ? "batch " + value : value + " tokens";
}

// The key without batch and sequence length: the group a configuration is drawn in.
ConfigKey group_key(ConfigKey key) {
  key.axes.erase(kBatch);
  key.axes.erase(kSequence);
  return key;
}

// Each inference configuration's median energy per sample: the energy_per_query_sample_j its runs
// stored, else its energy per query over its batch (a query is one batch).
std::map<ConfigKey, double> energy_per_sample(const std::vector<ConfigPoint>& queries,
                                              const std::vector<RunRecord>& records) {
  std::map<ConfigKey, std::vector<double>> stored;
  for (const RunRecord& r : records) {
    if (r.status != RunStatus::kOk || r.epoch_time_s || !r.latency.any()) continue;
    if (const auto it = r.metrics.find("energy_per_query_sample_j"); it != r.metrics.end())
      stored[config_key(r)].push_back(it->second);
  }
  std::map<ConfigKey, double> out;
  for (const ConfigPoint& p : queries) {
    if (const auto it = stored.find(p.key); it != stored.end()) {
      out[p.key] = median(it->second);
    } else if (const auto batch = axis_of(p.key, kBatch); batch && p.energy_j) {
      if (const auto n = parse_number(*batch); n && *n > 0) out[p.key] = *p.energy_j / *n;
    }
  }
  return out;
}

// The distinct values `points` take on `axis`, in order.
std::vector<std::string> values_of(const std::vector<const ConfigPoint*>& points, const char* axis) {
  std::vector<std::string> values;
  for (const ConfigPoint* p : points) {
    if (const auto v = axis_of(p->key, axis); v && std::find(values.begin(), values.end(), *v) == values.end())
      values.push_back(*v);
  }
  std::sort(values.begin(), values.end(), value_less);
  return values;
}

struct Pick {
  const json* row = nullptr;
  std::size_t group = 0;
};

// A picked row as the summary names it.
json pick_json(const Pick& pick, bool several_modes) {
  if (!pick.row) return nullptr;
  const json& r = *pick.row;
  std::string config = r["config"].get<std::string>();
  if (several_modes) config += (config.empty() ? "" : " ") + std::string("in ") + r["mode"].get<std::string>();
  return {{"config", config},
          {"group", pick.group},
          {"p99_ms", r["p99_ms"]},
          {"throughput", r["throughput"]},
          {"energy_per_query_j", r["energy_per_query_j"]},
          {"energy_per_sample_j", r["energy_per_sample_j"]}};
}

// Per workload: the configurations with the most throughput, the lowest p99 latency and the least
// energy per sample, over every group (power mode) of the workload.
json workload_summary(const std::string& workload, const json& groups) {
  std::size_t configurations = 0;
  std::set<std::string> modes;
  Pick throughput, latency, energy;
  const auto better = [](const Pick& current, const json& row, const char* key, bool larger) {
    if (row[key].is_null()) return false;
    if (!current.row) return true;
    const double a = row[key].get<double>(), b = (*current.row)[key].get<double>();
    return larger ? a > b : a < b;
  };
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g]["workload"] != workload) continue;
    for (const json& row : groups[g]["rows"]) {
      ++configurations;
      modes.insert(row["mode"].get<std::string>());
      if (better(throughput, row, "throughput", true)) throughput = {&row, g};
      if (better(latency, row, "p99_ms", false)) latency = {&row, g};
      if (better(energy, row, "energy_per_sample_j", false)) energy = {&row, g};
    }
  }
  const bool several_modes = modes.size() > 1;
  return {{"workload", workload},
          {"configurations", configurations},
          {"modes", modes.size()},
          {"most_throughput", pick_json(throughput, several_modes)},
          {"lowest_latency", pick_json(latency, several_modes)},
          {"least_energy_per_sample", pick_json(energy, several_modes)}};
}

// One sentence per workload; a configuration that wins twice is named once and then "also".
std::string summary_sentence(const json& s) {
  const auto ms = [](const json& v) { return fmt::format("{:.3g} ms", v.get<double>()); };
  const auto where = [](const json& pick) {
    const std::string config = pick["config"].get<std::string>();
    return config.empty() ? std::string() : " at " + escape(config);
  };
  std::vector<std::string> clauses;
  const json& most = s["most_throughput"];
  const json& fastest = s["lowest_latency"];
  const json& frugal = s["least_energy_per_sample"];
  if (!most.is_null()) {
    clauses.push_back(
        fmt::format("the most throughput is <strong>{:.4g} samples/s</strong>{} (p99 latency {}{})",
                    most["throughput"].get<double>(), where(most), ms(most["p99_ms"]),
                    most["energy_per_sample_j"].is_null()
                        ? std::string()
                        : fmt::format(", {:.3g} J per sample", most["energy_per_sample_j"].get<double>())));
  }
  clauses.push_back(
      fmt::format("the lowest p99 latency is <strong>{}</strong>{}{}", ms(fastest["p99_ms"]),
                  !most.is_null() && fastest["config"] == most["config"] ? " there too" : where(fastest),
                  fastest["throughput"].is_null() || (!most.is_null() && fastest["config"] == most["config"])
                      ? std::string()
                      : fmt::format(" ({:.4g} samples/s)", fastest["throughput"].get<double>())));
  if (!frugal.is_null()) {
    const bool again = (!most.is_null() && frugal["config"] == most["config"]) || frugal["config"] == fastest["config"];
    clauses.push_back(fmt::format("the least energy per sample is <strong>{:.3g} J</strong>{}",
                                  frugal["energy_per_sample_j"].get<double>(),
                                  again ? ", also" + where(frugal) : where(frugal)));
  }
  const auto modes = s["modes"].get<std::size_t>();
  return fmt::format("<p class=\"answer\" data-answer=\"inference\">{} ({} configurations{}): {}.</p>\n",
                     escape(s["workload"].get<std::string>()), s["configurations"].get<std::size_t>(),
                     modes > 1 ? fmt::format(" in {} power modes", modes) : std::string(), fmt::join(clauses, "; "));
}

}  // namespace

json inference_section(const std::vector<ConfigPoint>& points, const std::vector<RunRecord>& records) {
  std::vector<ConfigPoint> queries;
  std::copy_if(points.begin(), points.end(), std::back_inserter(queries),
               [](const ConfigPoint& p) { return p.query_latency.has_value(); });
  const auto per_sample = energy_per_sample(queries, records);
  std::map<ConfigKey, std::vector<const ConfigPoint*>> by_group;
  for (const ConfigPoint& p : queries) by_group[group_key(p.key)].push_back(&p);
  // A workload whose every power mode measured one configuration (a sweep of modes at one batch)
  // would get a chart of one point per mode: its modes become the x axis of one group instead.
  std::map<std::string, std::size_t> groups_of, single;
  for (const auto& [key, members] : by_group) {
    ++groups_of[key.workload];
    single[key.workload] += members.size() == 1 ? 1 : 0;
  }
  std::map<ConfigKey, std::pair<std::vector<const ConfigPoint*>, bool>> ordered;  // members, across modes
  for (const auto& [key, members] : by_group) {
    if (groups_of[key.workload] > 1 && single[key.workload] == groups_of[key.workload]) {
      ConfigKey across = key;
      across.mode = PowerMode{};
      auto& group = ordered[across];
      group.first.push_back(members.front());
      group.second = true;
    } else {
      ordered[key] = {members, false};
    }
  }
  std::vector<ConfigKey> keys;
  for (const auto& [key, group] : ordered) keys.push_back(key);
  const auto shown = varying_axes(keys);

  json groups = json::array();
  std::vector<std::string> workloads;
  for (const auto& [key, group] : ordered) {
    const auto& [members, modes] = group;
    const auto batches = values_of(members, kBatch), sequences = values_of(members, kSequence);
    // Along x: the power modes of a group across modes; else the batch where it varies, with the
    // sequence length as the series; else the sequence length; a group of one configuration is
    // one point.
    const char* x_axis = modes ? "mode" : batches.size() > 1 ? kBatch : sequences.size() > 1 ? kSequence : nullptr;
    const char* series_axis = x_axis == kBatch && sequences.size() > 1 ? kSequence : nullptr;
    std::vector<ConfigKey> member_keys;
    for (const ConfigPoint* p : members) member_keys.push_back(p->key);
    const auto mode_labels = chart_labels(member_keys);
    json rows = json::array();
    for (std::size_t i = 0; i < members.size(); ++i) {
      const ConfigPoint* p = members[i];
      const std::string words = config_words(p->key);
      const auto energy = per_sample.find(p->key);
      rows.push_back(
          {{"x", modes    ? mode_labels[i]
                 : x_axis ? *axis_of(p->key, x_axis)
                          : (words.empty() ? key.mode.label() : words)},
           {"series", series_axis ? series_words(series_axis, *axis_of(p->key, series_axis)) : ""},
           {"series_value", series_axis ? *axis_of(p->key, series_axis) : ""},
           {"mode", p->key.mode.label()},
           {"batch", axis_of(p->key, kBatch) ? json(*axis_of(p->key, kBatch)) : json(nullptr)},
           {"sequence_length", axis_of(p->key, kSequence) ? json(*axis_of(p->key, kSequence)) : json(nullptr)},
           {"config", words},
           {"p50_ms", optional_json(p->latency.p50)},
           {"p90_ms", optional_json(p->latency.p90)},
           {"p99_ms", optional_json(p->latency.p99)},
           {"throughput", optional_json(p->throughput_samples_per_s)},
           {"energy_per_query_j", optional_json(p->energy_j)},
           {"energy_per_sample_j", energy == per_sample.end() ? json(nullptr) : json(energy->second)},
           {"runs", p->samples}});
    }
    // Batch sizes and sequence lengths in numeric order; power modes in the order aggregate() sorts them.
    if (!modes) {
      std::sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
        const std::string as = a["series_value"], bs = b["series_value"], ax = a["x"], bx = b["x"];
        if (as != bs) return value_less(as, bs);
        return value_less(ax, bx);
      });
    }
    json x_values = json::array(), series = json::array();
    for (const json& r : rows) {
      if (std::find(x_values.begin(), x_values.end(), r["x"]) == x_values.end()) x_values.push_back(r["x"]);
      if (std::find(series.begin(), series.end(), r["series"]) == series.end()) series.push_back(r["series"]);
    }
    if (!modes) {
      std::sort(x_values.begin(), x_values.end(),
                [](const json& a, const json& b) { return value_less(a.get<std::string>(), b.get<std::string>()); });
    }
    const auto any = [&](const char* column) {
      return std::any_of(rows.begin(), rows.end(), [&](const json& r) { return !r[column].is_null(); });
    };
    const std::string words = config_words(members.front()->key);
    const std::string axes = axes_label(key, shown);
    groups.push_back(
        {{"label", modes ? fmt::format("{}{}{} in every power mode", key.workload, axes.empty() ? "" : " | " + axes,
                                       words.empty() ? "" : " | " + words)
                         : config_label(key, shown)},
         {"workload", key.workload},
         {"mode", modes ? std::string() : key.mode.label()},
         {"latency", to_string(*members.front()->query_latency)},
         {"x_axis", x_axis ? x_axis : ""},
         {"x_title", modes                 ? "power mode"
                     : x_axis == kBatch    ? "batch size (samples per query)"
                     : x_axis == kSequence ? "sequence length (tokens)"
                                           : "configuration"},
         {"x_values", x_values},
         {"series", series},
         {"has_throughput", any("throughput")},
         {"has_energy", any("energy_per_query_j") || any("energy_per_sample_j")},
         {"rows", rows}});
    if (std::find(workloads.begin(), workloads.end(), key.workload) == workloads.end())
      workloads.push_back(key.workload);
  }
  json summaries = json::array();
  for (const std::string& w : workloads) summaries.push_back(workload_summary(w, groups));
  return {{"workloads", summaries}, {"groups", groups}};
}

std::string inference_html(const json& section, report_html::ChartCanvases& canvases) {
  const json& groups = section["groups"];
  if (groups.empty()) return "";
  std::string body =
      "<section id=\"inference\"><h2>Inference: latency, throughput and energy by batch size</h2><p>Per inference "
      "workload and power mode, each batch size × sequence length (where every power mode ran one configuration, "
      "the power modes side by side): the latency percentiles of a query (one batch; nearest rank over the timed "
      "queries, warm-up excluded), throughput in samples/s, and energy per query and per sample (the query's ÷ its "
      "batch); medians over repetitions. Every chart starts at zero.</p>\n";
  for (const json& summary : section["workloads"]) {
    const std::string workload = summary["workload"];
    body += fmt::format("<h3>{}</h3>\n", escape(workload)) + summary_sentence(summary);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const json& group = groups[g];
      if (group["workload"] != workload) continue;
      const std::string index = std::to_string(g);
      const std::string x = group["x_title"];
      body += fmt::format("<h4>{}</h4>\n<div class=\"chart-row\">\n", escape(group["label"].get<std::string>()));
      // Power modes along x need the room for their names: one chart a row.
      const bool wide = group["x_axis"] == "mode";
      const int width = wide ? 1000 : 490, height = wide ? 420 : 320;
      body += canvases.next("inference-latency:" + index, fmt::format("p50, p90 and p99 latency (ms) against {}", x),
                            width, height);
      if (group["has_throughput"].get<bool>()) {
        body += canvases.next("inference-throughput:" + index, fmt::format("Throughput (samples/s) against {}", x),
                              width, height);
      }
      if (group["has_energy"].get<bool>()) {
        body += canvases.next("inference-energy:" + index,
                              fmt::format("Energy per query and per sample (J) against {}", x), width, height);
      }
      std::vector<std::pair<std::string, std::string>> columns = {{"batch", "batch"},
                                                                  {"sequence_length", "sequence length"},
                                                                  {"p50_ms", "p50 (ms)"},
                                                                  {"p90_ms", "p90 (ms)"},
                                                                  {"p99_ms", "p99 (ms)"},
                                                                  {"throughput", "samples/s"},
                                                                  {"energy_per_query_j", "J/query"},
                                                                  {"energy_per_sample_j", "J/sample"},
                                                                  {"runs", "runs"}};
      if (group["x_axis"] == "mode") columns.insert(columns.begin(), {"mode", "power mode"});
      body += "</div>\n<details><summary>Table</summary>" +
              report_html::table(group["rows"], columns, "table-inference-" + index) + "</details>\n";
    }
  }
  return body + "</section>\n";
}

}  // namespace jetchar::analysis
