#include "analysis/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/config_groups.h"
#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_predictions.h"
#include "analysis/pareto.h"
#include "analysis/report_assets.h"
#include "analysis/statistics.h"
#include "analysis/variability.h"

namespace jetchar::analysis {
namespace {

using nlohmann::json;

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string cell(const json& v) {
  if (v.is_null()) return "–";
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  if (v.is_string()) return escape_html(v.get<std::string>());
  return escape_html(v.dump());
}

// An HTML table from rows of JSON objects, with the given columns (key, heading).
std::string table(const json& rows, const std::vector<std::pair<std::string, std::string>>& columns,
                  const std::string& id) {
  std::string out = fmt::format("<table id=\"{}\"><thead><tr>", id);
  for (const auto& [key, heading] : columns) out += "<th>" + escape_html(heading) + "</th>";
  out += "</tr></thead><tbody>";
  for (const json& row : rows) {
    out += "<tr>";
    for (const auto& [key, heading] : columns)
      out += "<td>" + cell(row.contains(key) ? row.at(key) : json(nullptr)) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

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
    json rows = json::array();
    for (std::size_t i = 0; i < g.points.size(); ++i) {
      const ConfigPoint& p = g.points[i];
      rows.push_back({{"mode", p.key.mode.label()},
                      {"axes", axes_label(p.key, shown)},
                      {"time_s", p.time_s},
                      {"energy_j", *p.energy_j},
                      {"power_w", optional_json(p.power_w)},
                      {"front", front.count(i) > 0},
                      {"samples", p.samples}});
    }
    // An inference group's time is a query's latency (ConfigPoint::query_latency), drawn in ms.
    const auto& latency = g.query_latency;
    groups.push_back({{"label", g.label()},
                      {"points", rows},
                      {"time_title", latency ? fmt::format("{} latency of a query (s)", to_string(*latency))
                                             : std::string("epoch time (s)")},
                      {"energy_title", latency ? "energy per query (J)" : "epoch energy (J)"}});
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
    for (const auto& r : v.loo) {
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
json mode_predictions_section(const std::vector<StoredModePrediction>& predictions) {
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
                        {"front", json::array()}});
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
    for (const PredictedFrontPoint& p : f.points) {
      maybe += p.may_be_on_front && !p.on_front;
      group["points"].push_back(predicted_front_point_json(p, predictions[p.prediction], true));
    }
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

// The answer first: per Pareto group, the configuration with the least energy and the fastest one,
// each with how many samples its medians rest on and how much its repetitions vary (CV of the
// median time across repetitions; null with one).
json recommendation_section(const std::vector<ConfigPoint>& points, const std::vector<RunRecord>& records,
                            LatencyPercentile latency) {
  std::map<ConfigKey, std::optional<double>> cv;
  for (const VariabilityRow& r : variability(records, VariabilityLevel::kRepetitions, {}, latency))
    cv[r.key] = r.time_s.cv;
  json groups = json::array();
  const bool kinds =
      std::any_of(points.begin(), points.end(), [](const ConfigPoint& p) { return p.key.axes.count("board") > 0; });
  for (const ParetoGroup& g :
       pareto_groups(points, kinds ? std::vector<std::string>{"board"} : std::vector<std::string>{})) {
    const auto shown = varying_axes(g.points);
    auto pick = [&](const ConfigPoint& p) {
      const auto found = cv.find(p.key);
      return json{{"mode", p.key.mode.label()},
                  {"axes", axes_label(p.key, shown)},
                  {"time", time_value(p)},
                  {"time_unit", p.query_latency ? "ms" : "s"},
                  {"energy_j", *p.energy_j},
                  {"energy_unit", p.query_latency ? "J per query" : "J per epoch"},
                  {"samples", p.samples},
                  {"cv_pct", found != cv.end() && found->second ? json(100 * *found->second) : json(nullptr)}};
    };
    const auto least_energy = std::min_element(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) {
      return std::tie(*a.energy_j, a.time_s) < std::tie(*b.energy_j, b.time_s);
    });
    const auto fastest = std::min_element(g.points.begin(), g.points.end(), [](const auto& a, const auto& b) {
      return std::tie(a.time_s, *a.energy_j) < std::tie(b.time_s, *b.energy_j);
    });
    groups.push_back({{"label", g.label()},
                      {"configurations", g.points.size()},
                      {"least_energy", pick(*least_energy)},
                      {"fastest", pick(*fastest)}});
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

// JSON inside <script>: '<' only occurs inside strings, where \u003c means the same and cannot
// close the element.
std::string script_safe(const std::string& json_text) {
  std::string out;
  for (char c : json_text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

}  // namespace

json report_data(const std::vector<RunRecord>& records, const ReportOptions& options) {
  auto points = aggregate(records);
  std::map<std::string, std::size_t> statuses;
  for (const RunRecord& r : records) ++statuses[std::string(to_string(r.status))];
  const auto simulated = std::count_if(records.begin(), records.end(), [](const RunRecord& r) { return r.simulated; });
  json data = {{"title", options.title},      {"source", options.source}, {"rows", records.size()},
               {"simulated_rows", simulated}, {"statuses", statuses},     {"configurations", points.size()}};
  data["pareto"] = pareto_section(points);
  data["recommendation"] = recommendation_section(points, records, LatencyPercentile::kP99);
  data["stall"] = stall_section(points);
  data["prediction"] = prediction_section(points, options.model);
  data["mode_predictions"] = mode_predictions_section(options.mode_predictions);
  data["latency"] = latency_section(points);
  data["stats"] = stats_section(records);
  data["fleet"] = fleet_section(records);
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

// The HTML of each report section, rendered from report_data()'s JSON. Charts are numbered in page
// order (chart-0, chart-1, ...): report.js finds each canvas by its data-chart, and tests by its id.
class ChartCanvases {
 public:
  std::string next(const std::string& kind, const std::string& caption) {
    return fmt::format(
        "<figure><canvas id=\"chart-{}\" data-chart=\"{}\" width=\"1000\" "
        "height=\"420\"></canvas><figcaption>{}</figcaption></figure>\n",
        count_++, kind, escape_html(caption));
  }

 private:
  int count_ = 0;
};

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
  return fmt::format(
      "<header><h1>{}</h1><p>{} — {} rows ({}), {} configurations.</p>{}<p>Epoch times and energies are "
      "medians over warm epochs: every epoch after epoch 0, which runs on a cold cache (epoch 0 only where "
      "a configuration has no other), as in <code>jetchar results list</code> and <code>jetchar analyze</code>."
      "</p></header>\n",
      escape_html(options.title), escape_html(options.source), data["rows"].get<std::size_t>(),
      escape_html(status_line), data["configurations"].get<std::size_t>(), simulated_line);
}

// One sentence per group: what to pick for least energy and for least time, with the figures and
// what they rest on.
std::string recommendation_html(const json& recommendation) {
  if (recommendation.empty()) return "";
  auto figures = [](const json& p) {
    const std::string axes = p["axes"].get<std::string>();
    const std::string spread = p["cv_pct"].is_null()
                                   ? std::string("one run, so no spread")
                                   : fmt::format("CV {:.1f} % across repetitions", p["cv_pct"].get<double>());
    const auto samples = p["samples"].get<std::size_t>();
    return fmt::format("<strong>{}</strong>{}: {:.4g} {} and {:.4g} {} (median of {} sample{}; {})",
                       escape_html(p["mode"].get<std::string>()), axes.empty() ? "" : " " + escape_html(axes),
                       p["time"].get<double>(), p["time_unit"].get<std::string>(), p["energy_j"].get<double>(),
                       p["energy_unit"].get<std::string>(), samples, samples == 1 ? "" : "s", spread);
  };
  std::string body = "<section id=\"recommendation\"><h2>What to pick</h2>\n";
  for (const json& g : recommendation) {
    body += fmt::format("<p>{} ({} configurations): for the least energy pick {}; for the least time pick {}.</p>\n",
                        escape_html(g["label"].get<std::string>()), g["configurations"].get<std::size_t>(),
                        figures(g["least_energy"]), figures(g["fastest"]));
  }
  return body + "</section>\n";
}

std::string pareto_html(const json& pareto, ChartCanvases& canvases) {
  if (pareto.empty()) return "";
  std::string body =
      "<section id=\"pareto\"><h2>Time vs energy per power mode</h2><p>Each point is one configuration (median over "
      "warm epochs, repetitions and devices); the line joins the Pareto front: no other configuration is both faster "
      "and cheaper.</p>\n";
  for (std::size_t g = 0; g < pareto.size(); ++g) {
    const json& group = pareto[g];
    body += fmt::format("<h3>{}</h3>", escape_html(group["label"].get<std::string>()));
    const std::string time_title = group["time_title"], energy_title = group["energy_title"];
    body += canvases.next("pareto:" + std::to_string(g),
                          fmt::format("{} vs {}; Pareto front highlighted", time_title, energy_title));
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
    body += fmt::format("<h3>{}</h3>", escape_html(group["label"].get<std::string>()));
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
  if (!options.trace_caption.empty()) body += "<p>" + escape_html(options.trace_caption) + "</p>\n";
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
                        escape_html(group["label"].get<std::string>()), pct(group["loo_time_mape"]),
                        pct(group["loo_energy_mape"]), pct(group["kfold_time_mape"]));
    body += canvases.next("prediction:" + std::to_string(g),
                          fmt::format("Predicted vs measured {}; the diagonal is a perfect prediction",
                                      group["time_title"].get<std::string>()));
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
        escape_html(group["label"].get<std::string>()), group["modes"].get<std::size_t>(),
        group["profiled"].get<std::size_t>(), 100 * group["level"].get<double>(),
        escape_html(group["time_form"].get<std::string>()),
        escape_html(group["power_form"].get<std::string>().empty() ? "-" : group["power_form"].get<std::string>()),
        group["modelled"].get<bool>() ? "; times from the simulated board's time model (MODELLED)" : "");
    if (!group["points"].empty()) {
      body += fmt::format(
          "<p>Predicted Pareto front: {} modes ({} measured, {} predicted); {} more may be on it within their "
          "intervals.</p>",
          group["front"].size(), group["measured_on_front"].get<std::size_t>(),
          group["predicted_on_front"].get<std::size_t>(), group["may_be_on_front"].get<std::size_t>());
      body += canvases.next("predicted-front:" + std::to_string(g),
                            "Epoch time (s) vs epoch energy (J) of every power mode: measured (profiled) filled, "
                            "predicted hollow, the predicted Pareto front joined with its intervals");
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
  html += fmt::format("<title>{}</title>\n<style>{}</style>\n", escape_html(title), assets::kReportCss);
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
  body += pareto_html(data["pareto"], canvases);
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
