#include "analysis/report_phases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/config_groups.h"
#include "analysis/statistics.h"

namespace jetchar::analysis {
namespace {

using nlohmann::json;
using report_html::escape;
using report_html::table;

// The axes a pretraining study compares phases across, shown in columns of their own.
constexpr const char* kPrecision = "precision";
constexpr const char* kRanksPerNode = "nproc_per_node";
constexpr const char* kNodes = "nnodes";

std::string run_key(const std::string& sweep, const std::string& run_id, const std::string& device) {
  return sweep + '\x1f' + run_id + '\x1f' + device;
}

// The run's configuration without the settings the throughput table has columns for, and
// without its phases (the page shows them per phase).
ConfigKey configuration(const RunRecord& r) {
  ConfigKey key = config_key(r);
  for (const char* shown : {"phases", kPrecision, kRanksPerNode, kNodes}) key.axes.erase(shown);
  return key;
}

// Epochs without a run id (an export without the column) are one run per configuration.
std::string run_key(const RunRecord& r) {
  return run_key(r.sweep.value_or(""), r.run_id.value_or(""), r.device.value_or("")) +
         (r.run_id ? "" : '\x1f' + configuration(r).label());
}

std::int64_t axis_count(const RunRecord& r, const char* axis) {
  const auto found = r.axes.find(axis);
  if (found == r.axes.end()) return 1;
  try {
    return std::max<std::int64_t>(1, std::stoll(found->second));
  } catch (const std::exception&) {
    return 1;
  }
}

// One phase's loss line: each point the mean loss of consecutive steps (one step each while the
// phase has at most kMaxLossPointsPerPhase), x the last of them numbered through the run.
void add_step_points(const PhaseStepLosses& phase, std::int64_t first_step, json& points) {
  const std::size_t n = phase.losses.size();
  const std::size_t per_point = (n + kMaxLossPointsPerPhase - 1) / kMaxLossPointsPerPhase;
  for (std::size_t begin = 0; begin < n; begin += per_point) {
    const std::size_t end = std::min(n, begin + per_point);
    double sum = 0;
    std::size_t finite = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (phase.losses[i] && std::isfinite(*phase.losses[i])) {
        sum += *phase.losses[i];
        ++finite;
      }
    }
    points.push_back({{"x", first_step + static_cast<std::int64_t>(end)},
                      {"phase", phase.phase},
                      {"loss", finite > 0 ? json(sum / static_cast<double>(finite)) : json(nullptr)}});
  }
}

struct PhasedRun {
  std::vector<const RunRecord*> epochs;  // in the records' order
  std::vector<const PhaseStepLosses*> steps;
};

}  // namespace

json phases_section(const std::vector<RunRecord>& records, const std::vector<PhaseStepLosses>& steps) {
  std::map<std::string, PhasedRun> runs;
  std::vector<std::string> order;
  for (const RunRecord& r : records) {
    if (!r.epoch || !r.metrics.count("phase")) continue;
    const auto key = run_key(r);
    if (!runs.count(key)) order.push_back(key);
    runs[key].epochs.push_back(&r);
  }
  for (const auto& phase : steps) {
    if (const auto found = runs.find(run_key(phase.sweep, phase.run_id, phase.device)); found != runs.end()) {
      found->second.steps.push_back(&phase);
    }
  }
  // Labels name only what tells the runs apart (a sweep records every setting).
  std::vector<ConfigKey> keys;
  for (const auto& key : order) keys.push_back(configuration(*runs[key].epochs.front()));
  const auto shown = varying_axes(keys);
  json out_runs = json::array();
  // (configuration, precision, world size, phase) -> each run's sequences/s.
  std::map<std::tuple<std::string, std::string, std::int64_t, int>, std::vector<double>> throughput;
  for (const auto& key : order) {
    const PhasedRun& run = runs[key];
    const RunRecord& first = *run.epochs.front();
    std::map<int, json> phases;
    json points = json::array();
    for (const RunRecord* r : run.epochs) {
      const int phase = static_cast<int>(r->metrics.at("phase"));
      const auto loss = r->metrics.find("loss");
      const json loss_json = loss == r->metrics.end() ? json(nullptr) : json(loss->second);
      if (run.steps.empty()) points.push_back({{"x", *r->epoch}, {"phase", phase}, {"loss", loss_json}});
      auto& summary = phases[phase];
      if (summary.is_null()) {
        summary = {{"phase", phase}, {"epochs", 0}, {"steps", nullptr}, {"samples", 0}, {"time_s", 0.0}};
      }
      summary["epochs"] = summary["epochs"].get<int>() + 1;
      summary["samples"] = summary["samples"].get<std::int64_t>() + r->samples.value_or(0);
      summary["time_s"] = summary["time_s"].get<double>() + r->epoch_time_s.value_or(0.0);
      summary["final_loss"] = loss_json;
    }
    std::int64_t steps_before = 0;
    for (const PhaseStepLosses* phase : run.steps) {
      add_step_points(*phase, steps_before, points);
      steps_before += static_cast<std::int64_t>(phase->losses.size());
      if (phases.count(phase->phase)) phases[phase->phase]["steps"] = phase->losses.size();
    }
    const std::string config = config_label(configuration(first), shown);
    const auto precision = first.axes.count(kPrecision) ? first.axes.at(kPrecision) : std::string("–");
    const auto world_size = axis_count(first, kRanksPerNode) * axis_count(first, kNodes);
    json rows = json::array();
    for (auto& [phase, summary] : phases) {
      const double time_s = summary["time_s"].get<double>();
      const auto samples = static_cast<double>(summary["samples"].get<std::int64_t>());
      summary["sequences_per_s"] = time_s > 0 ? json(samples / time_s) : json(nullptr);
      if (time_s > 0) throughput[{config, precision, world_size, phase}].push_back(samples / time_s);
      rows.push_back(summary);
    }
    out_runs.push_back(
        {{"label", fmt::format("{} | {} | {} rank{}{}", config, precision, world_size, world_size == 1 ? "" : "s",
                               first.run_id ? " | run " + *first.run_id : "")},
         {"precision", precision},
         {"world_size", world_size},
         {"loss_over", run.steps.empty() ? "epoch" : "step"},
         {"points", points},
         {"phases", rows}});
  }
  json out_throughput = json::array();
  for (const auto& [key, values] : throughput) {
    const auto& [config, precision, world_size, phase] = key;
    out_throughput.push_back(
        {{"configuration", config},
         {"precision", precision},
         {"world_size", world_size},
         {"label", fmt::format("{} | {} | {} rank{}", config, precision, world_size, world_size == 1 ? "" : "s")},
         {"phase", phase},
         {"runs", values.size()},
         {"sequences_per_s", median(values)}});
  }
  return {{"runs", out_runs}, {"throughput", out_throughput}};
}

std::string phases_html(const json& section, report_html::ChartCanvases& canvases) {
  const json& runs = section["runs"];
  if (runs.empty()) return "";
  std::string body =
      "<section id=\"phases\"><h2>Pretraining phases</h2><p>Runs that pretrain in phases "
      "(<code>workload.phases</code>, <code>train --phase</code>), each phase on the weights of the one before: the "
      "loss over the optimizer steps, one line per phase (the steps numbered on through the run; a phase of more "
      "than " +
      std::to_string(kMaxLossPointsPerPhase) +
      " steps is drawn as the mean of consecutive steps), and each phase's sequences per second over its epochs. "
      "From an export, which keeps no step's loss, the loss of each epoch.</p>\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& run = runs[i];
    const json& last = run["phases"].back();
    body += fmt::format("<h3>{}</h3>\n", escape(run["label"].get<std::string>()));
    body += fmt::format(
        "<p class=\"answer\" data-answer=\"phases\">{} phases; phase {} trained {:.4g} sequences/s{}.</p>\n",
        run["phases"].size(), last["phase"].get<int>(),
        last["sequences_per_s"].is_null() ? 0.0 : last["sequences_per_s"].get<double>(),
        last["final_loss"].is_null() ? std::string()
                                     : fmt::format(" to a loss of {:.4g}", last["final_loss"].get<double>()));
    body += canvases.next("phases:" + std::to_string(i), run["loss_over"] == "step"
                                                             ? "Loss per optimizer step, one line per phase"
                                                             : "Loss per epoch, one line per phase");
    body += "<details><summary>Table</summary>" +
            table(run["phases"],
                  {{"phase", "phase"},
                   {"epochs", "epochs"},
                   {"steps", "steps"},
                   {"samples", "sequences"},
                   {"time_s", "time (s)"},
                   {"sequences_per_s", "sequences/s"},
                   {"final_loss", "final loss"}},
                  fmt::format("table-phases-{}", i)) +
            "</details>\n";
  }
  body +=
      "<h3>Throughput per precision and world size</h3><p>Each phase's sequences per second (the whole world's, over "
      "its epochs' time), the median over the runs of a configuration.</p>\n";
  body += canvases.next("phases-throughput", "Sequences/s per configuration, one bar per phase");
  body += "<details><summary>Table</summary>" +
          table(section["throughput"],
                {{"configuration", "configuration"},
                 {"precision", "precision"},
                 {"world_size", "ranks"},
                 {"phase", "phase"},
                 {"runs", "runs"},
                 {"sequences_per_s", "sequences/s"}},
                "table-phases-throughput") +
          "</details>\n";
  return body + "</section>\n";
}

}  // namespace jetchar::analysis
