// `jetchar report RESULTS -o report.html`: one self-contained HTML report (works offline). RESULTS
// is a sweep's results directory, its results.db, or a CSV/JSONL export.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/power_trace.h"
#include "analysis/report.h"
#include "analysis/results_file.h"
#include "analysis/results_store_reader.h"
#include "cli/command.h"
#include "sysfs/output_file.h"

namespace {

struct ReportCommandOptions {
  std::string results;
  std::string output = "report.html";
  std::string trace;
  std::string model = "nnls";
  std::string title;
};

void run_report(const ReportCommandOptions& o) {
  using namespace jetchar::analysis;
  // Refused before anything is read or written: a report over its own store would destroy it.
  std::vector<std::filesystem::path> inputs{o.results};
  if (!o.trace.empty()) inputs.emplace_back(o.trace);
  jetchar::sysfs::refuse_output_onto(o.output, inputs, "-o");
  ReportOptions options;
  options.source = o.results;
  options.title = o.title.empty() ? fmt::format("jetchar report: {}", o.results) : o.title;
  options.model = parse_model_kind(o.model);
  std::vector<RunRecord> records;
  if (is_results_store(o.results) || std::filesystem::is_directory(o.results)) {
    ResultsStoreReader store(o.results);
    records = store.records();
    // An adaptive_profile sweep's predictions for every mode: the predicted-modes page.
    options.mode_predictions = store.mode_predictions();
    // Power over time from the store unless a trace file is given.
    if (o.trace.empty()) {
      if (auto stored = store.power_trace()) {
        options.trace = std::move(stored->samples);
        options.trace_caption = fmt::format("Run {} ({}): {}.", stored->run, stored->config, stored->source);
      }
    }
  } else {
    records = load_results(o.results);
  }
  if (!o.trace.empty()) {
    options.trace = load_power_trace(o.trace);
    options.trace_caption = fmt::format("From {}.", o.trace);
  }
  const std::string html = render_report(records, options);
  // Whole or not at all: a failed write leaves an earlier report of that name as it was.
  jetchar::sysfs::write_output_file(o.output, html);
  fmt::print("wrote {} ({} bytes)\n", o.output, html.size());
}

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  auto* report =
      app.add_subcommand("report", "Write a self-contained HTML report (plots and tables) of a sweep's results");
  report
      ->add_option(
          "results", o->results,
          "A results directory (from `jetchar sweep run`), its results.db, or an export: .csv, .jsonl/.ndjson/.json "
          "(layout: analysis/README.md)")
      ->required()
      ->check(CLI::ExistingPath);
  report->add_option("-o,--output", o->output, "HTML file to write")->capture_default_str();
  report
      ->add_option("--power-trace", o->trace,
                   "CSV t_s,power_w,marker: power over time within an epoch (default for a results store: its stored "
                   "power samples, else minibatch energies, else epoch averages)")
      ->check(CLI::ExistingFile);
  report->add_option("--model", o->model, "Predictor for predicted vs measured: linear, inverse, resource, nnls")
      ->capture_default_str();
  report->add_option("--title", o->title, "Page title (default: the results file)");
  report->callback([o] { run_report(*o); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(75, add_report_command);
