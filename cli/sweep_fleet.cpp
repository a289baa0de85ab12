// `jetchar sweep submit|task|status`: a sweep as Slurm jobs across a fleet of boards
// (sweeps/fleet/submission.h, node.h, status.h): the scripts and their submission, one task's
// runs on its node's board, and the fleet's progress.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/sweep_command.h"
#include "results/location.h"
#include "sweeps/board_kinds.h"
#include "sweeps/fleet/multi_node_run.h"
#include "sweeps/fleet/node.h"
#include "sweeps/fleet/status.h"
#include "sweeps/fleet/submission.h"
#include "sweeps/plan.h"
#include "sweeps/slurm/client.h"
#include "sweeps/slurm/submission.h"
#include "sweeps/spec_io.h"

namespace jetchar::cli {
namespace {

namespace fs = std::filesystem;

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

// submit, task and status: the same sweep as Slurm jobs across a fleet of boards.
}  // namespace

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

}  // namespace jetchar::cli
