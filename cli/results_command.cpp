// `jetchar results list|show|export`: read a sweep's results store.
#include <fmt/format.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "experiments/results_export.h"
#include "experiments/results_location.h"
#include "experiments/results_store.h"

namespace jetchar::cli {
namespace {

namespace ex = jetchar::experiments;

struct ResultsOptions {
  std::string results = "results";
  std::string sweep;
  std::string run_id;
  std::string output;
  bool csv = false;
  bool jsonl = false;
};

std::string seconds_or_dash(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

void list(const ResultsOptions& options) {
  const auto location = ex::ResultsLocation::from(options.results);
  const ex::ResultsStore store(location.store());
  const auto runs = store.list(options.sweep);
  fmt::print("{:<16} {:<10} {:<8} {:<16} {:<16} {:>6} {:>7} {:>12} {:>12}\n", "sweep", "run", "status", "model",
             "mode", "batch", "workers", "epoch (s)", "energy (J)");
  for (const auto& run : runs) {
    fmt::print("{:<16} {:<10} {:<8} {:<16} {:<16} {:>6} {:>7} {:>12} {:>12}\n", run.sweep, run.run_id, run.status,
               run.model, run.power_mode.empty() ? "-" : run.power_mode, run.batch_size, run.workers,
               seconds_or_dash(run.median_epoch_s, "{:.3f}"), seconds_or_dash(run.median_energy_j, "{:.2f}"));
  }
  fmt::print("{} runs in {} (epoch and energy: medians over epochs)\n", runs.size(), location.store().string());
}

void show(const ResultsOptions& options) {
  const ex::ResultsStore store(ex::ResultsLocation::from(options.results).store());
  std::string sweep = options.sweep;
  if (sweep.empty()) {
    const auto sweeps = store.sweeps();
    if (sweeps.size() != 1) throw std::invalid_argument("several sweeps in this store: name one with --sweep");
    sweep = sweeps.front();
  }
  const auto run = store.load(sweep, options.run_id);
  if (!run) throw std::invalid_argument(fmt::format("no run '{}' in sweep '{}' (see `jetchar results list`)", options.run_id, sweep));
  std::string text;
  google::protobuf::TextFormat::PrintToString(*run, &text);
  std::cout << text;
}

void export_runs(const ResultsOptions& options) {
  if (options.csv == options.jsonl) throw std::invalid_argument("choose one of --csv or --jsonl");
  const ex::ResultsStore store(ex::ResultsLocation::from(options.results).store());
  const auto runs = store.load_all(options.sweep);
  const auto format = options.csv ? ex::ExportFormat::kCsv : ex::ExportFormat::kJsonl;
  if (options.output.empty() || options.output == "-") {
    ex::export_results(runs, format, std::cout);
    return;
  }
  std::ofstream out(options.output);
  if (!out) throw std::invalid_argument("cannot write '" + options.output + "'");
  const auto rows = ex::export_results(runs, format, out);
  out.close();
  if (!out) throw std::runtime_error("writing '" + options.output + "' failed (disk full?)");
  std::cerr << fmt::format("{} rows from {} runs written to {}\n", rows, runs.size(), options.output);
}

void add_results_command(CLI::App& app) {
  auto& group = command_group(app, "results", "Read a sweep's stored results");
  auto options = std::make_shared<ResultsOptions>();

  auto* list_cmd = group.add_subcommand("list", "One line per stored run");
  list_cmd->add_option("results", options->results, "Results directory or results.db file")->capture_default_str();
  list_cmd->add_option("--sweep", options->sweep, "Only this sweep");
  list_cmd->callback([options] { list(*options); });

  auto* show_cmd = group.add_subcommand("show", "Everything recorded for one run (Protobuf text format)");
  show_cmd->add_option("results", options->results, "Results directory or results.db file")->required();
  show_cmd->add_option("run", options->run_id, "Run id, e.g. 0003-r0")->required();
  show_cmd->add_option("--sweep", options->sweep, "Sweep name (needed when the store holds several)");
  show_cmd->callback([options] { show(*options); });

  auto* export_cmd = group.add_subcommand("export", "Flat rows (one per epoch) for pandas and spreadsheets");
  export_cmd->add_option("results", options->results, "Results directory or results.db file")->required();
  export_cmd->add_flag("--csv", options->csv, "Comma-separated values with a header row");
  export_cmd->add_flag("--jsonl", options->jsonl, "One JSON object per line");
  export_cmd->add_option("-o,--output", options->output, "Output file (default: standard output)");
  export_cmd->add_option("--sweep", options->sweep, "Only this sweep");
  export_cmd->callback([options] { export_runs(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(60, add_results_command);

}  // namespace jetchar::cli
