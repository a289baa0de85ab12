// `jetchar sweep plan|run|resume`: the main job — power-mode sweeps that survive anything. `sweep
// submit|task|status`, the same sweep as Slurm jobs across a fleet of boards, are in
// cli/sweep_fleet.cpp.
#include "cli/sweep_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "cli/adaptive_profile_report.h"
#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/message_text.h"
#include "cli/sweep_summary.h"
#include "experiments/characterization_executor.h"
#include "experiments/sweep_validation.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/open_board.h"
#include "results/location.h"
#include "sweeps/board_kinds.h"
#include "sweeps/fleet/multi_node_run.h"
#include "sweeps/plan.h"
#include "sweeps/session.h"
#include "sweeps/spec_io.h"

namespace jetchar::cli {
namespace {

namespace ex = jetchar::experiments;
namespace fs = std::filesystem;

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace

jetson::BoardHandle open_sweep_board(const SweepOptions& options, const proto::SweepSpec& sweep) {
  // A kind's board (a spec with board kinds) before the sweep's.
  std::string spec_board = sweep.board();
  for (const auto& kind : sweep.kinds()) {
    if (kind.name() == options.kind && !kind.board().empty()) spec_board = kind.board();
  }
  const std::string board = !options.board.empty() ? options.board : !spec_board.empty() ? spec_board : "auto";
  return jetson::open_board(board, options.root.empty() ? std::nullopt : std::optional<fs::path>(options.root),
                            options.state_dir.empty() ? std::nullopt : std::optional<fs::path>(options.state_dir));
}

namespace {

void print_plan(const sweeps::SweepPlan& plan) {
  fmt::print("{:<9} {:<44} {}\n", "run", "power mode", "settings");
  for (const auto& run : plan.runs) {
    std::string settings;
    for (const auto& [field, value] : run.axis_values) settings += fmt::format("{}={} ", field, value);
    fmt::print("{:<9} {:<44} {}\n", run.run_id, sweeps::describe_mode(run.spec.device()), settings);
  }
}

// Validates against the board; prints every problem and throws when there is any.
void check_plan(const sweeps::SweepPlan& plan, const jetson::BoardHandle& board, const std::string& source) {
  const auto problems = ex::validate_plan_against_board(plan, board);
  for (const auto& problem : problems)
    std::cerr << cut_for_terminal(fmt::format("{}: run {}: {}", source, problem.run_id, problem.message)) << '\n';
  if (!problems.empty()) {
    throw std::invalid_argument(
        fmt::format("{}: {} problem(s) found before the sweep started; nothing was run", source, problems.size()));
  }
}

void run_plan_command(const SweepOptions& options) {
  const auto sweep = sweeps::load_sweep_spec(options.spec);
  const auto plan = sweeps::plan_board_kind(sweep, options.kind, options.spec);
  auto board = open_sweep_board(options, sweep);
  print_plan(plan);
  check_plan(plan, board, options.spec);
  fmt::print("{} runs, {} power-mode switch(es), on {}; all valid on this board\n", plan.runs.size(),
             plan.mode_switches, board.label);
  const bool adaptive = std::any_of(plan.runs.begin(), plan.runs.end(),
                                    [](const sweeps::PlannedRun& run) { return run.spec.adaptive().enabled(); });
  fmt::print("estimated time: {} (rough: baseload + cool-down + 3 x forward MACs at this machine's matmul rate){}\n",
             duration_text(ex::estimate_sweep_seconds(plan)),
             adaptive ? "; an upper bound: adaptive stopping ends runs once time and power have settled" : "");
}

// "2 INVALID, 1 OOM": the statuses other than OK among `results`, most frequent first.
std::string not_ok_counts(const std::vector<proto::RunResult>& results) {
  std::map<std::string, std::size_t> counts;
  for (const auto& result : results) {
    if (result.status() != proto::OK) ++counts[proto::RunStatus_Name(result.status())];
  }
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [status, count] : sorted) text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count, status);
  return text;
}

// The sweep's progress as one refreshing line on a terminal, else the runner's log lines; each
// profiled mode of an adaptive sweep as it is reached.
class SweepProgressDisplay : public sweeps::SweepObserver {
 public:
  explicit SweepProgressDisplay(bool tty) : tty_(tty) {}
  void run_done(const sweeps::SweepProgress& progress, const sweeps::PlannedRun& run,
                const proto::RunResult& result) override {
    if (!tty_) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] run %s %s%s", progress.done, progress.total, run.run_id.c_str(),
                 proto::RunStatus_Name(result.status()).c_str(),
                 progress.eta_s ? fmt::format("  ETA {}", duration_text(*progress.eta_s)).c_str() : "");
    if (result.status() != proto::OK) std::fprintf(stderr, " (%s)\n", result.reason().c_str());
  }
  void mode_profiled(const sweeps::ProfiledMode& mode) override { print_profiled_mode(mode); }
  std::ostream* log() override { return tty_ ? nullptr : &std::cerr; }

 private:
  bool tty_;
};

// How each part a node other than 0 of a multi-node run carried out ended: it stores nothing,
// so this is all it can tell.
class WorldPartDisplay : public SweepProgressDisplay {
 public:
  struct Part {
    std::string run_id;
    proto::RunStatus status = proto::OK;
    std::string reason;
  };
  using SweepProgressDisplay::SweepProgressDisplay;
  void run_done(const sweeps::SweepProgress& progress, const sweeps::PlannedRun& run,
                const proto::RunResult& result) override {
    SweepProgressDisplay::run_done(progress, run, result);
    parts_.push_back({run.run_id, result.status(), result.reason()});
  }
  const std::vector<Part>& parts() const { return parts_; }

 private:
  std::vector<Part> parts_;
};

// The board options of this command line, to repeat in a hint (" --board sim:agx-orin-r36 --root DIR"):
// a resume on another board would refuse the runs or, worse, run them elsewhere.
std::string board_arguments(const SweepOptions& options) {
  std::string arguments;
  if (!options.board.empty()) arguments += " --board " + options.board;
  if (!options.root.empty()) arguments += " --root " + options.root;
  if (!options.state_dir.empty()) arguments += " --state-dir " + options.state_dir;
  return arguments;
}

// "; times are MODELLED ..." when the stored runs were paced to a simulated board's time model,
// with the range of slow-motion factors where this host could not keep up.
std::string modelled_times(const std::vector<proto::RunResult>& results) {
  std::size_t paced = 0;
  double least = 0, most = 0;
  for (const auto& r : results) {
    if (r.context().time_model().empty()) continue;
    ++paced;
    if (const double k = r.modelled_time().dilation(); k > 1) {
      least = least == 0 ? k : std::min(least, k);
      most = std::max(most, k);
    }
  }
  if (paced == 0) return {};
  std::string text = "; times are the time model's (MODELLED)";
  if (most > 0) {
    text += least == most ? fmt::format(", run {:.1f}x slowed down on this host", most)
                          : fmt::format(", runs {:.1f}-{:.1f}x slowed down on this host", least, most);
  }
  return text;
}

// The closing lines, then the status: interrupted when stopped by a signal, a failure when a
// stored run is not OK.
void finish_sweep(const SweepOptions& options, const sweeps::SweepProgress& progress,
                  const std::vector<proto::RunResult>& results, const results::ResultsLocation& location,
                  bool power_modelled, bool stopped) {
  fmt::print("{} of {} runs stored ({} run now, {} not OK){}{}; results: {}\n", progress.done, progress.total,
             progress.ran_now, progress.failed, power_modelled ? "; power figures are SIMULATED" : "",
             modelled_times(results), location.store().string());
  fmt::print("export: jetchar results export {} --csv -o runs.csv   report: jetchar report {} -o report.html\n",
             location.directory.string(), location.directory.string());
  std::fflush(stdout);
  if (stopped) {
    throw cli::CommandExit(cli::kInterrupted,
                           fmt::format("sweep stopped by a signal; `jetchar sweep resume {}{}` finishes it",
                                       location.directory.string(), board_arguments(options)));
  }
  // A sweep whose runs did not all succeed has not produced what it was asked for: its status says
  // so (a script or systemd unit sees it), and the table says which runs and why.
  const std::string failed = not_ok_counts(results);
  if (!failed.empty()) {
    throw cli::CommandExit(
        cli::kFailure,
        fmt::format(
            "error: {} of {} stored runs are not OK ({}); `jetchar results show {} RUN` says why",
            std::count_if(results.begin(), results.end(), [](const auto& r) { return r.status() != proto::OK; }),
            results.size(), failed, location.directory.string()));
  }
}

// The closing lines of a node other than 0 of a multi-node run, which stores nothing: how its part
// ended and who records the run; a failure status when its part was not OK.
void finish_world_part(const sweeps::SlurmStepWorld& world, const std::vector<WorldPartDisplay::Part>& parts,
                       const fs::path& results_dir, bool stopped) {
  const fs::path nodes = results_dir.parent_path();
  for (const auto& part : parts) {
    // An OK part's reason holds only notes, which node 0's record keeps for the world.
    fmt::print(
        "run {}: this node's part (node {} of {}) ended {}{}; node 0 ({}) records the run in its store under {}\n",
        part.run_id, world.node_rank, world.nnodes, proto::RunStatus_Name(part.status),
        part.status == proto::OK || part.reason.empty() ? "" : " (" + part.reason + ")", world.master_addr,
        nodes.string());
  }
  std::fflush(stdout);
  if (stopped) throw cli::CommandExit(cli::kInterrupted, "stopped by a signal; node 0's record says what was measured");
  const auto failed =
      std::find_if(parts.begin(), parts.end(), [](const auto& part) { return part.status != proto::OK; });
  if (failed != parts.end()) {
    throw cli::CommandExit(cli::kFailure, fmt::format("error: this node's part of run {} ended {}; node 0's record "
                                                      "says how the world's run ended",
                                                      failed->run_id, proto::RunStatus_Name(failed->status)));
  }
}

}  // namespace

void run_sweep(const SweepOptions& options, const fs::path& spec_file, const fs::path& results_dir,
               std::optional<sweeps::RunSelection> selection) {
  const auto world = selection ? selection->world : std::nullopt;
  sweeps::SweepSession session({spec_file, results_dir, options.kind, std::move(selection), options.wait});
  auto board = open_sweep_board(options, session.sweep());
  if (!options.skip_validation) check_plan(session.plan(), board, spec_file.string());
  session.open_results();

  // A signal between or during runs (also "as found" ones, which never control the board) ends the
  // sweep after the current run, with its summary and status 130, instead of killing it (the
  // executor's control session holds the interrupt too while it controls the board).
  const jetson::ControlInterrupt interrupt;
  ex::CharacterizationExecutor executor(board, &std::cerr);
  executor.set_redact_serial(options.redact_serial);
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  WorldPartDisplay display(tty);
  if (session.records_runs()) {
    fmt::print(stderr, "sweep {}: {} runs on {}; results in {}\n", session.name(), session.plan().runs.size(),
               board.label, session.location().directory.string());
  } else {
    fmt::print(stderr, "sweep {}: node {} of the {} nodes of {} run(s), on {}; node 0 ({}) records them\n",
               session.name(), world->node_rank, world->nnodes, session.plan().runs.size(), board.label,
               world->master_addr);
  }
  const sweeps::SweepOutcome outcome = session.run(
      executor, [&interrupt] { return interrupt.signal() != 0; }, display);
  if (outcome.adaptive) print_adaptive_profile(*outcome.adaptive, session.store_file());
  executor.restore();
  if (tty) std::fputs("\n", stderr);
  if (!session.records_runs()) {
    finish_world_part(*world, display.parts(), session.location().directory, outcome.stopped);
    return;
  }

  const auto results = session.stored_results();
  print_sweep_summary(results);
  finish_sweep(options, outcome.progress, results, session.location(), board.hooks->power_modelled(), outcome.stopped);
}

namespace {

// plan, run and resume: a sweep on this command's board.
void add_board_sweep_commands(CLI::App& group, const std::shared_ptr<SweepOptions>& options) {
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
    const auto sweep = sweeps::load_sweep_spec(options->spec);
    fs::path results = options->results;
    if (results.empty())
      results = !sweep.results().empty() ? fs::path(sweep.results()) : fs::path("results") / sweep.name();
    run_sweep(*options, options->spec, results);
  });

  auto* resume = group.add_subcommand("resume", "Finish an interrupted sweep from its results directory");
  resume->add_option("results", options->results, "Results directory of the sweep")->required();
  add_board(resume);
  for (auto* command : {run, resume}) {
    command->add_flag("--redact-serial", options->redact_serial,
                      "Store the board's serial number (and a serial-less host's name) as a SHA-256 hash");
    command->add_flag("--wait", options->wait,
                      "Wait for another jetchar writing the results directory to end (default: refuse, exit 1)");
  }
  for (auto* command : {plan, run, resume}) {
    command->add_option("--kind", options->kind,
                        "The spec's board kind to plan and run (a spec with `kinds` needs one)");
  }
  resume->callback([options] {
    const auto location = results::ResultsLocation::from(options->results, false);
    if (!fs::exists(location.spec())) {
      throw std::invalid_argument(
          fmt::format("{} has no sweep.textproto: not a sweep's results directory", options->results));
    }
    run_sweep(*options, location.spec(), location.directory);
  });
}

void add_sweep_command(CLI::App& app) {
  auto& group = command_group(app, "sweep", "Plan and run power-mode sweeps (resumable)");
  const auto options = std::make_shared<SweepOptions>();
  add_board_sweep_commands(group, options);
  add_fleet_sweep_commands(group, options);
}

}  // namespace

JETCHAR_REGISTER_COMMAND(50, add_sweep_command);

}  // namespace jetchar::cli
