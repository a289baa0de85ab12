// `jetchar results list|show|export|merge`: read a sweep's results store; merge a fleet's stores.
#include <fmt/format.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "jetson/control/control_interrupt.h"
#include "results/epoch_medians.h"
#include "results/export.h"
#include "results/location.h"
#include "results/merge.h"
#include "results/store.h"
#include "sysfs/output_file.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;

struct ResultsOptions {
  std::string results = "results";
  std::string sweep;
  std::string run_id;
  std::string output;
  bool csv = false;
  bool jsonl = false;
  bool wait = false;
  bool ranks = false;
  std::vector<std::string> inputs;
};

std::string seconds_or_dash(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

// Every read opens the store read-only: reading results never changes them (ResultsStore::Access).
results::ResultsStore open_store(const ResultsOptions& options) {
  return results::ResultsStore(results::ResultsLocation::from(options.results).store(),
                               results::ResultsStore::Access::kReadOnly);
}

void list(const ResultsOptions& options) {
  const auto location = results::ResultsLocation::from(options.results);
  const results::ResultsStore store(location.store(), results::ResultsStore::Access::kReadOnly);
  const auto runs = store.list(options.sweep);
  // Columns as wide as their longest entry: custom mode names run long ("custom: 4 cores CPU/GPU/EMC ...").
  std::size_t sweep_width = 5, model_width = 5, mode_width = 4;
  bool cold = false;
  for (const auto& run : runs) {
    sweep_width = std::max(sweep_width, run.sweep.size());
    model_width = std::max(model_width, run.model.size());
    mode_width = std::max(mode_width, run.power_mode.size());
    cold = cold || run.cold_only;
  }
  const auto marked = [](const std::optional<double>& value, const char* format, bool cold_only) {
    return seconds_or_dash(value, format) + (value && cold_only ? "*" : "");
  };
  fmt::print("{:<{}} {:<10} {:<8} {:<{}} {:<{}} {:>6} {:>7} {:>12} {:>12}\n", "sweep", sweep_width, "run", "status",
             "model", model_width, "mode", mode_width, "batch", "workers", "epoch (s)", "energy (J)");
  for (const auto& run : runs) {
    fmt::print("{:<{}} {:<10} {:<8} {:<{}} {:<{}} {:>6} {:>7} {:>12} {:>12}\n", run.sweep, sweep_width, run.run_id,
               run.status, run.model, model_width, run.power_mode.empty() ? "-" : run.power_mode, mode_width,
               run.batch_size, run.workers, marked(run.median_epoch_s, "{:.3f}", run.cold_only),
               marked(run.median_energy_j, "{:.2f}", run.cold_only));
  }
  fmt::print("{} runs in {}; epoch time and energy: {}\n", runs.size(), location.store().string(),
             cold ? results::kWarmEpochsNote : "medians over warm epochs (every epoch after epoch 0)");
}

void show(const ResultsOptions& options) {
  const results::ResultsStore store = open_store(options);
  std::string sweep = options.sweep;
  if (sweep.empty()) {
    const auto sweeps = store.sweeps();
    if (sweeps.empty()) throw std::invalid_argument(fmt::format("{} holds no runs", store.file().string()));
    if (sweeps.size() != 1) {
      std::string names;
      for (const auto& name : sweeps) names += (names.empty() ? "" : ", ") + name;
      throw cli::UsageError(
          fmt::format("{} holds several sweeps ({}): name one with --sweep", store.file().string(), names));
    }
    sweep = sweeps.front();
  }
  const auto run = store.load(sweep, options.run_id);
  if (!run)
    throw std::invalid_argument(
        fmt::format("no run '{}' in sweep '{}' (see `jetchar results list`)", options.run_id, sweep));
  std::string text;
  google::protobuf::TextFormat::PrintToString(*run, &text);
  std::cout << text;
}

void export_runs(const ResultsOptions& options) {
  if (options.csv == options.jsonl) throw cli::UsageError("choose one of --csv or --jsonl");
  const bool to_file = !options.output.empty() && options.output != "-";
  // Refused before anything is written: an export over its own store would destroy it.
  if (to_file) sysfs::refuse_output_onto(options.output, std::vector<fs::path>{options.results}, "--output");
  const results::ResultsStore store = open_store(options);
  const auto runs = store.load_all(options.sweep);
  const auto format = options.csv ? results::ExportFormat::kCsv : results::ExportFormat::kJsonl;
  const auto export_rows = options.ranks ? results::export_rank_epochs : results::export_results;
  if (!to_file) {
    if (export_rows(runs, format, std::cout) == 0 && options.ranks) {
      std::cerr << "no data-parallel run is stored: no rank rows\n";
    }
    return;
  }
  // Whole or not at all: a failed export leaves an earlier file of that name as it was.
  std::ostringstream text;
  const std::size_t rows = export_rows(runs, format, text);
  sysfs::write_output_file(options.output, text.str());
  std::cerr << fmt::format("{} rows from {} runs written to {}\n", rows, runs.size(), options.output);
}

void merge(const ResultsOptions& options) {
  std::vector<fs::path> inputs(options.inputs.begin(), options.inputs.end());
  // A signal before the write (one transaction) stops the merge with nothing written; one during
  // it lets it finish, then ends with 130.
  const jetson::ControlInterrupt interrupt;
  results::MergeOptions merge_options;
  merge_options.stop_requested = [&interrupt] { return interrupt.signal() != 0; };
  merge_options.wait_for_writer = options.wait;
  // A line per stage on stderr: a fleet's merge reads every store whole before it writes (tens of
  // seconds), and must be seen working; stdout keeps the one summary line.
  merge_options.progress = [](const results::MergeProgress& progress) {
    using Stage = results::MergeProgress::Stage;
    switch (progress.stage) {
      case Stage::kOutputRead:
        std::cerr << fmt::format("reading output store {}: {} runs\n", progress.store.string(), progress.runs);
        break;
      case Stage::kInputRead:
        std::cerr << fmt::format("reading store {}: {} runs\n", progress.store.string(), progress.runs);
        break;
      case Stage::kWriting:
        std::cerr << fmt::format("writing {} new runs into {}\n", progress.runs, progress.store.string());
        break;
    }
  };
  results::MergeSummary summary;
  try {
    summary = results::merge_results(options.output, inputs, merge_options);
  } catch (const results::MergeStopped&) {
    throw cli::CommandExit(
        cli::kInterrupted,
        fmt::format("results merge stopped by a signal: nothing was merged into {}", options.output));
  }
  fmt::print(
      "merged {} store(s) into {}: {} run(s) read, {} added, {} already held (kept once); {} run(s) in total{}\n",
      summary.inputs, results::ResultsLocation{options.output}.store().string(), summary.runs_read, summary.runs_added,
      summary.duplicates, summary.runs_total,
      summary.predictions_added > 0
          ? fmt::format("; the mode predictions of {} sweep(s) added", summary.predictions_added)
          : std::string());
  if (interrupt.signal() != 0) {
    std::fflush(stdout);
    throw cli::CommandExit(cli::kInterrupted, "results merge: a signal came during the write, which was finished");
  }
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
  export_cmd->add_flag("--ranks", options->ranks,
                       "One row per rank and epoch of each data-parallel run (stall, compute, E2E, all-reduce) "
                       "instead of one per epoch");
  export_cmd->callback([options] { export_runs(*options); });

  auto* merge_cmd = group.add_subcommand(
      "merge", "Merge stores (a fleet's per-node stores) into one, each run once; analyze and report read the result");
  merge_cmd->add_option("output", options->output, "Results directory to merge into (created when absent)")->required();
  merge_cmd->add_option("stores", options->inputs, "Results directories or results.db files to merge")->required();
  merge_cmd->add_flag("--wait", options->wait, "Wait for another process writing the output to end (default: refuse)");
  merge_cmd->footer(
      "A run is (sweep, run id) on one board: met again with the same content it is kept once (a requeued task's "
      "store, a merge run twice); with different content, or from another board, it is a conflict: an error "
      "naming both stores, and nothing is merged. Every input is checked before anything is written, and what is new "
      "is written in one transaction: a refused or interrupted merge leaves the output as it was.");
  merge_cmd->callback([options] { merge(*options); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(60, add_results_command);

}  // namespace jetchar::cli
