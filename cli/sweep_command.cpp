// `jetchar sweep plan|run|resume`: the main job — power-mode sweeps that survive anything.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "experiments/characterization_executor.h"
#include "experiments/epoch_medians.h"
#include "experiments/results_location.h"
#include "experiments/results_store.h"
#include "experiments/spec_io.h"
#include "experiments/sweep_plan.h"
#include "experiments/sweep_runner.h"
#include "experiments/sweep_validation.h"
#include "experiments/systemd_notifier.h"
#include "jetson/board_handle.h"

namespace jetchar::cli {
namespace {

namespace ex = jetchar::experiments;
namespace fs = std::filesystem;

struct SweepOptions {
  std::string spec;
  std::string results;
  std::string board;
  std::string root;
  std::string state_dir;
  bool skip_validation = false;
};

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

jetson::BoardHandle open_sweep_board(const SweepOptions& options, const ex::proto::SweepSpec& sweep) {
  const std::string board = !options.board.empty() ? options.board : !sweep.board().empty() ? sweep.board() : "auto";
  return jetson::open_board(board, options.root.empty() ? std::nullopt : std::optional<fs::path>(options.root),
                            options.state_dir.empty() ? std::nullopt : std::optional<fs::path>(options.state_dir));
}

void print_plan(const ex::SweepPlan& plan) {
  fmt::print("{:<9} {:<44} {}\n", "run", "power mode", "settings");
  for (const auto& run : plan.runs) {
    std::string settings;
    for (const auto& [field, value] : run.axis_values) settings += fmt::format("{}={} ", field, value);
    fmt::print("{:<9} {:<44} {}\n", run.run_id, ex::describe_mode(run.spec.device()), settings);
  }
}

// Validates against the board; prints every problem and throws when there is any.
void check_plan(const ex::SweepPlan& plan, const jetson::BoardHandle& board, const std::string& source) {
  const auto problems = ex::validate_plan_against_board(plan, *board.root, board.simulated());
  for (const auto& problem : problems) std::cerr << fmt::format("{}: run {}: {}\n", source, problem.run_id, problem.message);
  if (!problems.empty()) {
    throw std::invalid_argument(fmt::format("{}: {} problem(s) found before the sweep started; nothing was run",
                                            source, problems.size()));
  }
}

void run_plan_command(const SweepOptions& options) {
  const auto sweep = ex::load_sweep_spec(options.spec);
  const auto plan = ex::plan_sweep(sweep, options.spec);
  auto board = open_sweep_board(options, sweep);
  print_plan(plan);
  check_plan(plan, board, options.spec);
  fmt::print("{} runs, {} power-mode switch(es), on {}; all valid on this board\n", plan.runs.size(),
             plan.mode_switches, board.label);
  const bool adaptive = std::any_of(plan.runs.begin(), plan.runs.end(),
                                    [](const ex::PlannedRun& run) { return run.spec.adaptive().enabled(); });
  fmt::print("estimated time: {} (rough: baseload + cool-down + 3 x forward MACs at this machine's matmul rate){}\n",
             duration_text(ex::estimate_sweep_seconds(plan)),
             adaptive ? "; an upper bound: adaptive stopping ends runs once time and power have settled" : "");
}

// SIGINT/SIGTERM before the board is under control. The executor installs its own handlers while
// it controls the board (jetson::ControlInterrupt, which puts these back afterwards); a sweep that
// changes nothing on the board (every run "as found") has only these, so a signal between or
// during its runs still ends the sweep after the current run, with its summary and status 130,
// instead of killing it.
std::atomic<int> g_signal{0};
extern "C" void on_sweep_signal(int signal) { g_signal.store(signal); }

void install_sweep_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_sweep_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

// "2 INVALID, 1 OOM": the statuses other than OK among `results`, most frequent first.
std::string not_ok_counts(const std::vector<ex::proto::RunResult>& results) {
  std::map<std::string, std::size_t> counts;
  for (const auto& result : results) {
    if (result.status() != ex::proto::OK) ++counts[ex::proto::RunStatus_Name(result.status())];
  }
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [status, count] : sorted) text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, status);
  return text;
}

// Runs (or resumes) the sweep in `spec_file` with its results in `results_dir`. Nothing is
// written before the plan is accepted: a refused sweep leaves no results directory and no copy
// of its spec behind.
void run_sweep(const SweepOptions& options, const fs::path& spec_file, const fs::path& results_dir) {
  const auto sweep = ex::load_sweep_spec(spec_file);
  const auto plan = ex::plan_sweep(sweep, spec_file.string());
  const ex::ResultsLocation location{results_dir};

  // The results directory belongs to one sweep: a different spec there is refused, the same one
  // resumes.
  const std::string spec_text = read_text(spec_file);
  const bool spec_stored = fs::exists(location.spec());
  if (spec_stored && read_text(location.spec()) != spec_text) {
    throw std::invalid_argument(fmt::format(
        "{} holds results of a different sweep spec; use another --results directory or `jetchar sweep resume {}`",
        location.directory.string(), location.directory.string()));
  }

  auto board = open_sweep_board(options, sweep);
  if (!options.skip_validation) check_plan(plan, board, spec_file.string());
  const std::string name = sweep.name().empty() ? location.directory.filename().string() : sweep.name();

  fs::create_directories(location.directory);
  // The store before the spec's copy: a results.db that is not a store is refused with the
  // directory as it was.
  ex::ResultsStore store(location.store());
  if (!spec_stored && fs::absolute(spec_file) != fs::absolute(location.spec())) {
    // Written whole or not at all (temporary file + rename), so that a kill here never leaves a
    // torn copy that a resume would take for a different sweep.
    const fs::path temporary = location.spec().string() + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << spec_text;
      if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
    }
    fs::rename(temporary, location.spec());
  }

  install_sweep_signal_handlers();
  ex::SweepJournal journal(location.journal());
  const ex::SystemdNotifier notifier;
  ex::CharacterizationExecutor executor(board, &std::cerr);
  const bool tty = ::isatty(STDERR_FILENO) == 1;

  ex::SweepRunnerOptions runner_options;
  runner_options.sweep_name = name;
  runner_options.stop_requested = [&] { return executor.interrupted() || g_signal.load() != 0; };
  runner_options.log = tty ? nullptr : &std::cerr;
  if (tty) {
    runner_options.on_run = [](const ex::SweepProgress& progress, const ex::PlannedRun& run,
                               const ex::proto::RunResult& result) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] run %s %s%s", progress.done, progress.total, run.run_id.c_str(),
                   ex::proto::RunStatus_Name(result.status()).c_str(),
                   progress.eta_s ? fmt::format("  ETA {}", duration_text(*progress.eta_s)).c_str() : "");
      if (result.status() != ex::proto::OK) std::fprintf(stderr, " (%s)\n", result.reason().c_str());
    };
  }
  fmt::print(stderr, "sweep {}: {} runs on {}; results in {}\n", name, plan.runs.size(), board.label,
             location.directory.string());
  bool stopped = false;
  const auto progress = ex::SweepRunner(store, journal, notifier).run(plan, executor, runner_options, &stopped);
  executor.restore();
  if (tty) std::fputs("\n", stderr);

  const auto results = store.load_all(name);
  // The whole mode name: custom modes differ only at the end ("custom: 4 cores CPU/GPU/EMC 1728/612/...").
  std::size_t mode_width = 4;
  for (const auto& result : results) mode_width = std::max(mode_width, result.context().power_mode().size());
  fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>12} {:>12} {:>12} {:>8}\n", "run", "status", "mode", mode_width, "batch",
             "workers", "E2E s", "stall s", "energy J", "adaptive");
  bool cold = false;
  for (const auto& result : results) {
    // The figures `results list`, `analyze` and the report use (experiments/epoch_medians.h).
    const ex::EpochMedians medians = ex::warm_epoch_medians(result);
    cold = cold || medians.cold_only;
    const auto shown = [&](const std::optional<double>& value) {
      return value ? fmt::format("{:.3f}{}", *value, medians.cold_only ? "*" : "") : std::string("-");
    };
    const auto& spec = result.resolved();
    // Minibatches an adaptive run needed ("all" when it never settled), "-" without adaptive stopping.
    const std::string adaptive = !result.has_adaptive()               ? "-"
                                 : result.adaptive_minibatches() > 0 ? std::to_string(result.adaptive_minibatches())
                                                                     : "all";
    fmt::print("{:<9} {:<8} {:<{}} {:>7} {:>7} {:>12} {:>12} {:>12} {:>8}\n", result.run_id(),
               ex::proto::RunStatus_Name(result.status()), result.context().power_mode(), mode_width,
               spec.workload().batch_size(), spec.loader().workers(), shown(medians.e2e_s), shown(medians.stall_s),
               shown(medians.energy_j), adaptive);
  }
  fmt::print("E2E, stall and energy: {}\n", cold ? ex::kWarmEpochsNote : "medians over warm epochs (every epoch after epoch 0)");
  fmt::print("{} of {} runs stored ({} run now, {} not OK){}; results: {}\n", progress.done, progress.total,
             progress.ran_now, progress.failed, board.simulated() ? "; power figures are SIMULATED" : "",
             location.store().string());
  fmt::print("export: jetchar results export {} --csv -o runs.csv   report: jetchar report {} -o report.html\n",
             location.directory.string(), location.directory.string());
  std::fflush(stdout);
  if (stopped) {
    throw cli::CommandExit(cli::kInterrupted, fmt::format("sweep stopped by a signal; `jetchar sweep resume {}` finishes it",
                                                          location.directory.string()));
  }
  // A sweep whose runs did not all succeed has not produced what it was asked for: its status says
  // so (a script or systemd unit sees it), and the table above says which runs and why.
  const std::string failed = not_ok_counts(results);
  if (!failed.empty()) {
    throw cli::CommandExit(cli::kFailure,
                           fmt::format("error: {} of {} stored runs are not OK ({}); `jetchar results show {} RUN` says why",
                                       std::count_if(results.begin(), results.end(),
                                                     [](const auto& r) { return r.status() != ex::proto::OK; }),
                                       results.size(), failed, location.directory.string()));
  }
}

void add_sweep_command(CLI::App& app) {
  auto& group = command_group(app, "sweep", "Plan and run power-mode sweeps (resumable)");
  auto options = std::make_shared<SweepOptions>();
  auto add_board = [&](CLI::App* command) {
    command->add_option("--board", options->board, "auto, host, jetson or sim:<fixture> (default: the spec's board)");
    command->add_option("--root", options->root, "Directory that plays '/' (for sim: where the board lives)");
    command->add_option("--state-dir", options->state_dir, "Where the board's change journal lives");
  };

  auto* plan = group.add_subcommand("plan", "Expand, validate against the board and estimate; changes nothing");
  plan->add_option("spec", options->spec, "Sweep spec (Protobuf text format)")->required()->check(CLI::ExistingFile);
  add_board(plan);
  plan->callback([options] { run_plan_command(*options); });

  auto* run = group.add_subcommand("run", "Run a sweep; runs already in the results are kept and skipped");
  run->add_option("spec", options->spec, "Sweep spec (Protobuf text format)")->required()->check(CLI::ExistingFile);
  run->add_option("--results", options->results, "Results directory (default: the spec's, else results/<name>)");
  run->add_flag("--skip-validation", options->skip_validation, "Do not check the plan against the board first");
  add_board(run);
  jetchar::cli::add_examples(*run,
      "Examples (a power-mode sweep on a simulated AGX Orin, then its results):\n"
      "  jetchar sweep plan examples/sim-agx-orin-power-modes.textproto\n"
      "  jetchar sweep run examples/sim-agx-orin-power-modes.textproto --results modes\n"
      "  jetchar results list modes\n"
      "  jetchar analyze pareto modes\n"
      "  jetchar report modes -o report.html");
  run->callback([options] {
    const auto sweep = ex::load_sweep_spec(options->spec);
    fs::path results = options->results;
    if (results.empty()) results = !sweep.results().empty() ? fs::path(sweep.results()) : fs::path("results") / sweep.name();
    run_sweep(*options, options->spec, results);
  });

  auto* resume = group.add_subcommand("resume", "Finish an interrupted sweep from its results directory");
  resume->add_option("results", options->results, "Results directory of the sweep")->required();
  add_board(resume);
  resume->callback([options] {
    const auto location = ex::ResultsLocation::from(options->results, false);
    if (!fs::exists(location.spec())) {
      throw std::invalid_argument(fmt::format("{} has no sweep.textproto: not a sweep's results directory", options->results));
    }
    run_sweep(*options, location.spec(), location.directory);
  });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(50, add_sweep_command);

}  // namespace jetchar::cli
