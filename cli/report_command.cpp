// `jetchar report RESULTS... -o report.html`: one self-contained HTML report (works offline). Each
// RESULTS is a sweep's results directory, its results.db, or a CSV/JSONL export; several of them
// make one report, with a comparison page when they name two or more board kinds. --max-time,
// --max-latency and --max-power add the least-energy configuration within them to "What to pick".
// A line per stage goes to stderr (each input read, the rendering), so that a report of a large
// store is seen working; stdout keeps the one line naming the file written.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/power_trace.h"
#include "analysis/report.h"
#include "analysis/results_file.h"
#include "analysis/results_store_reader.h"
#include "cli/analyze_options.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "sysfs/output_file.h"

namespace {

struct ReportCommandOptions {
  std::vector<std::string> results;
  std::string output = "report.html";
  std::string trace;
  std::string model = "nnls";
  std::string title;
  std::optional<double> max_time_s, max_power_w;
  std::optional<std::string> max_latency;
  std::optional<std::string> baseline;
  std::string energy = "board";
};

// Runs among records, which are one per epoch where the input keeps epochs: a run is its run id
// (and workload, and board: merged fleets repeat ids); a record without one is a run of its own.
std::size_t store_runs(const std::vector<jetchar::analysis::RunRecord>& records) {
  std::set<std::tuple<std::string, std::string, std::string>> runs;
  std::size_t unnamed = 0;
  for (const auto& r : records) {
    if (r.run_id) {
      runs.emplace(r.workload, *r.run_id, r.device.value_or(""));
    } else {
      ++unnamed;
    }
  }
  return runs.size() + unnamed;
}

void stage_line(const std::string& text) {
  std::fputs((text + "\n").c_str(), stderr);
  std::fflush(stderr);
}

void run_report(const ReportCommandOptions& o) {
  using namespace jetchar::analysis;
  // Refused before anything is read or written: a report over one of its own stores would destroy it.
  std::vector<std::filesystem::path> inputs(o.results.begin(), o.results.end());
  if (!o.trace.empty()) inputs.emplace_back(o.trace);
  jetchar::sysfs::refuse_output_onto(o.output, inputs, "-o");
  if (o.baseline && o.results.size() < 2) {
    throw jetchar::cli::UsageError("--baseline goes with two or more RESULTS (board kinds to compare)");
  }
  ReportOptions options;
  options.source = fmt::format("{}", fmt::join(o.results, ", "));
  options.title = o.title.empty() ? fmt::format("jetchar report: {}", options.source) : o.title;
  options.model = parse_model_kind(o.model);
  options.budgets.max_time_s = o.max_time_s;
  options.budgets.max_power_w = o.max_power_w;
  if (o.max_latency) options.budgets.max_latency_s = jetchar::cli::latency_seconds(*o.max_latency);
  options.several_results = o.results.size() > 1;
  options.baseline = o.baseline;
  const auto energy = parse_energy_source(o.energy);
  if (!energy) throw jetchar::cli::UsageError(fmt::format("--energy '{}' is not valid; use board or meter", o.energy));
  options.energy = *energy;
  std::vector<RunRecord> records;
  for (const std::string& results : o.results) {
    if (is_results_store(results) || std::filesystem::is_directory(results)) {
      ResultsStoreReader store(results);
      auto more = store.records();
      stage_line(fmt::format("reading store {}: {} runs", results, store_runs(more)));
      records.insert(records.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
      // An adaptive_profile sweep's predictions for every mode: the predicted-modes page.
      auto predictions = store.mode_predictions();
      options.mode_predictions.insert(options.mode_predictions.end(), predictions.begin(), predictions.end());
      auto choices = store.mode_choices();
      options.mode_choices.insert(options.mode_choices.end(), choices.begin(), choices.end());
      auto steps = store.phase_steps();
      options.phase_steps.insert(options.phase_steps.end(), steps.begin(), steps.end());
      // Power over time from the (first) store that has it, unless a trace file is given.
      if (o.trace.empty() && !options.trace) {
        if (auto stored = store.power_trace()) {
          options.trace = std::move(stored->samples);
          options.trace_caption =
              options.several_results
                  ? fmt::format("{}, run {} ({}): {}.", results, stored->run, stored->config, stored->source)
                  : fmt::format("Run {} ({}): {}.", stored->run, stored->config, stored->source);
        }
      }
    } else {
      auto more = load_results(results);
      stage_line(fmt::format("reading export {}: {} runs", results, store_runs(more)));
      records.insert(records.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
  }
  if (!o.trace.empty()) {
    options.trace = load_power_trace(o.trace);
    options.trace_caption = fmt::format("From {}.", o.trace);
  }
  stage_line(fmt::format("rendering the report of {} runs", store_runs(records)));
  const std::string html = render_report(records, options);
  // Whole or not at all: a failed write leaves an earlier report of that name as it was.
  jetchar::sysfs::write_output_file(o.output, html);
  fmt::print("wrote {} ({} bytes)\n", o.output, html.size());
}

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  auto* report = app.add_subcommand(
      "report",
      "Write a self-contained HTML report (plots and tables) of a sweep's results: what to pick first, within "
      "budgets if given; several results side by side");
  report
      ->add_option("results", o->results,
                   "Results directories (from `jetchar sweep run`), their results.db, or exports: .csv, "
                   ".jsonl/.ndjson/.json (layout: analysis/README.md). Several make one report; of two or more board "
                   "kinds, with a comparison page (as `jetchar analyze compare`)")
      ->required()
      ->check(CLI::ExistingPath);
  report->add_option("-o,--output", o->output, "HTML file to write (never one of the RESULTS)")->capture_default_str();
  report
      ->add_option("--max-time", o->max_time_s,
                   "Budget: \"What to pick\" also names, per training workload, the least-energy configuration "
                   "with epoch time <= S seconds (as `analyze choose --max-time`), or the closest when none meets it")
      ->check(jetchar::cli::at_least(0, "seconds"));
  report->add_option("--max-latency", o->max_latency,
                     "Budget for inference workloads: p99 latency of a query <= this, e.g. 50ms, 0.05s (a bare "
                     "number is ms), as `analyze choose --max-latency`");
  report
      ->add_option("--max-power", o->max_power_w,
                   "Budget for every workload: average power <= W watts (with --max-time or --max-latency, both "
                   "must hold)")
      ->check(jetchar::cli::at_least(0, "watts"));
  report->add_option("--baseline", o->baseline,
                     "With several RESULTS: the board kind the others are compared against (default: the first by "
                     "name), as `analyze compare --baseline`");
  report
      ->add_option("--energy", o->energy,
                   "board: each board's own sensors (a Jetson's rails, a GPU's NVML counter); meter: the external "
                   "meter each run's spec configured, for every figure of the report (as `analyze compare --energy`)")
      ->capture_default_str();
  report
      ->add_option("--power-trace", o->trace,
                   "CSV t_s,power_w,marker: power over time within an epoch (default for a results store: its stored "
                   "power samples, else minibatch energies, else epoch averages)")
      ->check(CLI::ExistingFile);
  report->add_option("--model", o->model, "Predictor for predicted vs measured: linear, inverse, resource, nnls")
      ->capture_default_str();
  report->add_option("--title", o->title, "Page title (default: the results files)");
  report->callback([o] { run_report(*o); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(75, add_report_command);
