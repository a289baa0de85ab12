// `jetchar sweep plan|run|resume`: the main job — power-mode sweeps that survive anything; and
// `sweep submit|task|status`: the same sweep as Slurm jobs across a fleet of boards.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "sweeps/fleet/node.h"
#include "sweeps/fleet/status.h"
#include "sweeps/fleet/submission.h"
#include "sweeps/plan.h"
#include "sweeps/session.h"
#include "sweeps/slurm/client.h"
#include "sweeps/slurm/submission.h"
#include "sweeps/spec_io.h"

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
  std::string kind;  ///< the spec's board kind to plan (a spec with kinds needs one)
  bool skip_validation = false;
  bool redact_serial = false;
  bool wait = false;  ///< wait for another writer of the results directory instead of refusing
};

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

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

// The closing lines, then the status: interrupted when stopped by a signal, a failure when a
// stored run is not OK.
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

// Runs (or resumes) the sweep in `spec_file` with its results in `results_dir` (sweeps/session.h):
// nothing is written before the plan is accepted on the board, so a refused sweep leaves no results
// directory and no copy of its spec behind.
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

void run_sweep(const SweepOptions& options, const fs::path& spec_file, const fs::path& results_dir,
               std::optional<sweeps::RunSelection> selection = std::nullopt) {
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

// ---- fleets through Slurm: sweeps/fleet/submission.h, fleet_node.h, fleet_status.h ------

struct FleetOptions {
  bool slurm = false;
  std::string partition;
  std::string nodes;
  std::size_t runs_per_task = 1;
  std::string constraint;
  bool dry_run = false;
  std::string node_config = "/etc/jetchar/node.textproto";
  std::string jetchar;
  // sweep task
  std::string results;
  long chunk = -1;
  std::string run;  ///< one run by id (a multi-node run's job)
  std::string node;
  bool restore_only = false;
};

void submit_sweep(const FleetOptions& fleet, const SweepOptions& options) {
  if (!fleet.slurm) {
    throw cli::UsageError("sweep submit needs a scheduler: --slurm (the only one jetchar submits to)");
  }
  sweeps::FleetSubmitRequest request;
  request.spec = options.spec;
  request.results = options.results;
  const fs::path self = this_executable();
  request.jetchar = !fleet.jetchar.empty() ? fleet.jetchar : self.empty() ? std::string("jetchar") : self.string();
  request.partition = fleet.partition;
  request.nodes = fleet.nodes;
  request.constraint = fleet.constraint;
  request.node_config = fleet.node_config;
  request.runs_per_task = fleet.runs_per_task;
  request.redact_serial = options.redact_serial;
  const auto plan = sweeps::plan_fleet(request);
  const auto& submission = plan.submission;
  const fs::path slurm_dir = plan.options.results / "slurm";

  if (fleet.dry_run) {
    fmt::print("# sweep {}: {} runs{} in {} task(s) of up to {} run(s); results in {}\n", plan.options.sweep_name,
               submission.runs,
               submission.worlds.empty()
                   ? ""
                   : fmt::format(": {} multi-node run(s), a job each, and the others", submission.worlds.size()),
               submission.chunks, plan.options.runs_per_task, plan.options.results.string());
    for (const auto& kind : plan.kinds) {
      if (kind.kind.empty()) continue;
      fmt::print("# kind {}: {} runs on nodes with feature {}{}\n", kind.kind, kind.run_count, kind.constraint,
                 kind.nodes.empty() ? "" : fmt::format(" (pinned to {})", fmt::join(kind.nodes, ",")));
    }
    for (const auto& script : submission.worlds) {
      fmt::print("# ---- {} (sbatch --parsable {}): run {} on {} nodes\n{}", (slurm_dir / script.name).string(),
                 (slurm_dir / script.name).string(), script.run_id, script.run_nodes, script.text);
    }
    for (const auto& script : submission.arrays) {
      fmt::print("# ---- {} (sbatch --parsable {})\n{}", (slurm_dir / script.name).string(),
                 (slurm_dir / script.name).string(), script.text);
    }
    fmt::print("# ---- {} (sbatch --parsable --dependency=afterany:<the job ids above> {})\n{}",
               (slurm_dir / submission.merge.name).string(), (slurm_dir / submission.merge.name).string(),
               submission.merge.text);
    fmt::print("# dry run: nothing written, nothing submitted\n");
    return;
  }

  const auto submitted = sweeps::submit_fleet(plan, options.spec);
  for (std::size_t i = 0; i < submission.worlds.size(); ++i) {
    const auto& script = submission.worlds[i];
    fmt::print("submitted job {} (run {} on {} nodes{})\n", submitted.world_jobs[i], script.run_id, script.run_nodes,
               script.nodes.empty() ? "" : fmt::format(": {}", fmt::join(script.nodes, ",")));
  }
  for (std::size_t i = 0; i < submission.arrays.size(); ++i) {
    const auto& script = submission.arrays[i];
    fmt::print("submitted array job {} ({} task(s){}{})\n", submitted.array_jobs[i], script.chunks.size(),
               script.kind.empty() ? "" : " of kind " + script.kind, script.node.empty() ? "" : " on " + script.node);
  }
  fmt::print("submitted merge job {} (after every job ends: board restores, results merge + report into {})\n",
             submitted.merge_job, plan.options.results.string());
  fmt::print("status: jetchar sweep status {}\n", plan.options.results.string());
}

// The runs of `sweep task --chunk K`: chunk K of the plan's runs of one machine
// (sweeps/fleet/multi_node_run.h), less those another node stored (a task requeued onto another
// node must not run again what its first node stored).
sweeps::RunSelection chunk_selection(const FleetOptions& fleet, const sweeps::SweepPlan& plan, const fs::path& results,
                                     const std::string& node, std::string sweep_name) {
  const auto runs = sweeps::single_node_runs(plan);
  const auto range = sweeps::chunk_range(static_cast<std::size_t>(fleet.chunk), fleet.runs_per_task, runs.size());
  if (range.first == range.last) {
    throw std::invalid_argument(
        fmt::format("--chunk {}: the plan's {} runs of one machine make only {} chunk(s) of {}", fleet.chunk,
                    runs.size(), (runs.size() + fleet.runs_per_task - 1) / fleet.runs_per_task, fleet.runs_per_task));
  }
  sweeps::RunSelection selection;
  selection.sweep_name = std::move(sweep_name);
  for (std::size_t i = range.first; i < range.last; ++i) selection.run_ids.insert(runs[i].run_id);
  for (const auto& [run, other] :
       sweeps::runs_stored_by_other_nodes(results, node, selection.sweep_name, selection.run_ids)) {
    fmt::print(stderr, "run {} is stored by node {} already; skipped\n", run, other);
    selection.run_ids.erase(run);
  }
  return selection;
}

// The run of `sweep task --run ID`. A multi-node run: this node's place in its world from the srun
// step, and nothing to run on any node once one node stored it (multi_node_run.h); every node of
// the step asks the same stores, so all run it or none does.
std::optional<sweeps::RunSelection> run_selection(const FleetOptions& fleet, const std::string& kind,
                                                  const sweeps::SweepPlan& plan, const fs::path& results,
                                                  const std::string& node, std::string sweep_name) {
  const auto found = std::find_if(plan.runs.begin(), plan.runs.end(),
                                  [&](const sweeps::PlannedRun& run) { return run.run_id == fleet.run; });
  if (found == plan.runs.end()) {
    throw std::invalid_argument(
        fmt::format("--run {}: the sweep's plan{} has no such run (`jetchar sweep plan {}{}` lists its runs)",
                    fleet.run, kind.empty() ? "" : " of kind " + kind, (results / "sweep.textproto").string(),
                    kind.empty() ? "" : " --kind " + kind));
  }
  sweeps::RunSelection selection;
  selection.sweep_name = std::move(sweep_name);
  selection.run_ids.insert(found->run_id);
  if (sweeps::run_node_count(found->spec) > 1) {
    selection.world = sweeps::step_world_of_run(*found, sweeps::process_environment());
  }
  if (const auto stored = sweeps::node_storing_run(results, selection.sweep_name, found->run_id)) {
    fmt::print("run {} is stored by node {} already; node {} runs nothing\n", found->run_id, *stored, node);
    return std::nullopt;
  }
  return selection;
}

void run_task(const FleetOptions& fleet, SweepOptions options) {
  const int modes = (fleet.chunk >= 0 ? 1 : 0) + (fleet.run.empty() ? 0 : 1) + (fleet.restore_only ? 1 : 0);
  if (modes != 1) {
    throw cli::UsageError(
        "sweep task needs one of --chunk K (an array task: $SLURM_ARRAY_TASK_ID), --run RUN_ID (a multi-node run's "
        "job) or --restore-only");
  }
  if (fleet.runs_per_task == 0) throw std::invalid_argument("--runs-per-task 0: give 1 or more runs per task");
  const std::string node = sweeps::fleet_node_name(fleet.node);
  const fs::path results = fs::absolute(fleet.results).lexically_normal();
  const results::ResultsLocation location{results};
  if (!fs::exists(location.spec())) {
    throw std::invalid_argument(
        fmt::format("{} has no sweep.textproto: not a submitted sweep's results directory", results.string()));
  }
  const auto config = sweeps::load_fleet_node_config(fleet.node_config, node);
  if (options.board.empty()) options.board = config.board();
  if (options.root.empty()) options.root = config.root();
  if (options.state_dir.empty()) options.state_dir = config.state_dir();

  const auto sweep = sweeps::load_sweep_spec(location.spec());
  // A node of the sweep: the final job restores its board if a task left it changed (slurm_submission.h).
  fs::create_directories(results / "nodes" / node);
  // A board left changed by a task that died with its node is restored before anything else.
  const std::size_t restored = sweeps::restore_node_board([&] { return open_sweep_board(options, sweep); }, node);
  if (restored > 0) {
    fmt::print(stderr, "node {}: restored {} attribute(s) from the change journal a killed task left\n", node,
               restored);
  }
  if (fleet.restore_only) {
    if (restored == 0) fmt::print("node {}: no change pending on its board\n", node);
    return;
  }

  const auto plan = sweeps::plan_board_kind(sweep, options.kind, location.spec().string());
  const std::string sweep_name = sweeps::fleet_sweep_name(sweep, results);
  if (fleet.run.empty()) {
    run_sweep(options, location.spec(), results / "nodes" / node,
              chunk_selection(fleet, plan, results, node, sweep_name));
    return;
  }
  if (auto selection = run_selection(fleet, options.kind, plan, results, node, sweep_name)) {
    run_sweep(options, location.spec(), results / "nodes" / node, std::move(*selection));
  }
}

void sweep_status(const std::string& target) {
  const fs::path results =
      target.find_first_not_of("0123456789") == std::string::npos ? sweeps::results_of_job(target) : fs::path(target);
  const auto status = sweeps::fleet_status(results);
  fmt::print("{:<12} {:<40} {:>6} {:>7} {}\n", "node", "board (device id)", "done", "failed", "running");
  for (const auto& node : status.nodes) {
    fmt::print("{:<12} {:<40} {:>6} {:>7} {}\n", node.node,
               node.devices.empty() ? "-" : fmt::format("{}", fmt::join(node.devices, ",")), node.done, node.failed,
               node.running.empty() ? "-" : fmt::format("{}", fmt::join(node.running, ",")));
  }
  for (const auto& node : status.nodes) {
    if (node.interrupted_rerun.empty()) continue;
    fmt::print("{}: interrupted by a killed task and stored since by its requeued task: {}\n", node.node,
               fmt::join(node.interrupted_rerun, ","));
  }
  fmt::print("{} of {} planned runs stored by the nodes, {} not yet\n", status.planned_stored, status.planned,
             status.planned - status.planned_stored);
  if (status.merged_runs) {
    fmt::print("merged store {}: {} runs\n", status.merged_store.string(), *status.merged_runs);
  } else {
    fmt::print("merged store: not yet written (the merge job runs after every task)\n");
  }
  const auto view = sweeps::slurm_jobs_view(status.job_ids);
  switch (view.source) {
    case sweeps::SlurmJobsView::Source::kSacct:
      // Array tasks per node and state (a requeued task counts once, in its latest state).
      fmt::print("jobs (sacct), array tasks and jobs per node:\n");
      for (const auto& [node, states] : view.by_node) {
        std::string counts;
        for (const auto& [state, count] : states)
          counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, state);
        fmt::print("  {:<12} {}\n", node, counts);
      }
      break;
    case sweeps::SlurmJobsView::Source::kSqueue:
      fmt::print("{} -- states from squeue (pending and running jobs; an ended job is no longer listed)\n", view.note);
      fmt::print("jobs (squeue):\n{}", view.squeue.empty() ? "(none pending or running)\n" : view.squeue);
      break;
    case sweeps::SlurmJobsView::Source::kNone:
      if (!view.note.empty()) fmt::print("{}; the counts above come from the stores\n", view.note);
      break;
  }
}

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

// submit, task and status: the same sweep as Slurm jobs across a fleet of boards.
void add_fleet_sweep_commands(CLI::App& group, const std::shared_ptr<SweepOptions>& options) {
  auto fleet = std::make_shared<FleetOptions>();
  auto* submit = group.add_subcommand(
      "submit",
      "Run a sweep across a fleet of boards as Slurm jobs: a job array (and a job per run of several nodes), then a "
      "merge and report job");
  submit->add_option("spec", options->spec, "Sweep spec (Protobuf text format)")->required()->check(CLI::ExistingFile);
  submit->add_flag("--slurm", fleet->slurm, "Submit to Slurm (sbatch)");
  submit->add_option("--results", options->results,
                     "Shared results directory every node can write (default: the spec's, else results/<name>)");
  submit->add_option("--partition", fleet->partition, "Slurm partition (default: the cluster's default)");
  submit->add_option("--nodes", fleet->nodes,
                     "Node names (b1,b2,b3: chunks dealt round-robin, each node's array pinned to it, so a requeued "
                     "task returns to its board; a run of M nodes pinned to M of them) or a count N (one array, at "
                     "most N tasks at a time; per kind with `kinds`)");
  submit->add_option("--runs-per-task", fleet->runs_per_task, "Runs per array task")->capture_default_str();
  submit->add_option(
      "--constraint", fleet->constraint,
      "Slurm node feature naming the board kind (e.g. agx-orin); a spec with `kinds` names one per kind");
  submit
      ->add_option("--node-config", fleet->node_config,
                   "Each node's board config as the nodes see it; %n is the node's name")
      ->capture_default_str();
  submit->add_option("--jetchar", fleet->jetchar, "The jetchar executable as the nodes see it (default: this one)");
  submit->add_flag("--redact-serial", options->redact_serial, "Store board serial numbers as SHA-256 hashes");
  submit->add_flag("--dry-run", fleet->dry_run, "Print the sbatch scripts; write and submit nothing");
  jetchar::cli::add_examples(
      *submit,
      "Examples (the scripts for three boards, b1 to b3, four runs per task; then a spec of two board kinds, one\n"
      "array per kind routed by its Slurm feature):\n"
      "  jetchar sweep submit examples/sim-agx-orin-power-modes.textproto --slurm --nodes b1,b2,b3 --runs-per-task 4 "
      "--dry-run\n"
      "  jetchar sweep submit examples/fleet-board-kinds.textproto --slurm --results /nfs/jetchar/kinds "
      "--runs-per-task 4 --dry-run");
  submit->callback([options, fleet] { submit_sweep(*fleet, *options); });

  auto* task = group.add_subcommand(
      "task",
      "One array task of a submitted sweep (what the sbatch script runs): its chunk of runs on this node's board");
  task->add_option("results", fleet->results, "The sweep's shared results directory")->required();
  task->add_option("--chunk", fleet->chunk,
                   "Chunk number ($SLURM_ARRAY_TASK_ID): chunk K of the plan's runs of one machine, in plan order");
  task->add_option("--run", fleet->run,
                   "One run by id; a multi-node run's job runs this on every node as one srun step (node 0 stores "
                   "the run, the others nothing)");
  task->add_option("--kind", options->kind, "The board kind whose plan the chunk is of (a spec with `kinds`)");
  task->add_flag("--restore-only", fleet->restore_only,
                 "Only restore this node's board from a change journal a killed task left (what the final job runs)");
  task->add_option("--runs-per-task", fleet->runs_per_task, "Runs per chunk")->capture_default_str();
  task->add_option("--node-config", fleet->node_config, "This node's board config; %n is the node's name")
      ->capture_default_str();
  task->add_option("--node", fleet->node, "This node's name (default: $SLURMD_NODENAME, else the host name)");
  task->add_flag("--redact-serial", options->redact_serial, "Store the board's serial number as a SHA-256 hash");
  task->callback([options, fleet] { run_task(*fleet, *options); });

  auto status_target = std::make_shared<std::string>();
  auto* status = group.add_subcommand(
      "status", "Runs done, running and failed per node of a submitted sweep, from the stores and Slurm");
  status->add_option("target", *status_target, "The sweep's results directory, or one of its Slurm job ids")
      ->required();
  status->callback([status_target] { sweep_status(*status_target); });
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
