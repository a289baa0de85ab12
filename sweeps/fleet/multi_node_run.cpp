#include "sweeps/fleet/multi_node_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "results/store.h"

namespace jetchar::sweeps {

namespace fs = std::filesystem;

std::uint32_t run_node_count(const proto::ExperimentSpec& spec) {
  return std::max<std::uint32_t>(1, spec.workload().distributed().nnodes());
}

std::vector<PlannedRun> single_node_runs(const SweepPlan& plan) {
  std::vector<PlannedRun> runs;
  std::copy_if(plan.runs.begin(), plan.runs.end(), std::back_inserter(runs),
               [](const PlannedRun& run) { return run_node_count(run.spec) == 1; });
  return runs;
}

SlurmStepWorld step_world_of_run(const PlannedRun& run, const Environment& environment) {
  const auto& d = run.spec.workload().distributed();
  const std::uint32_t nodes = run_node_count(run.spec);
  const auto world = slurm_step_world(
      environment, d.master_addr().empty() ? std::nullopt : std::optional<std::string>(d.master_addr()),
      d.master_port() == 0 ? std::nullopt : std::optional<std::uint32_t>(d.master_port()));
  if (!world) {
    throw std::invalid_argument(fmt::format(
        "run {} is a run of {} nodes (workload.distributed.nnodes {}): each node runs `jetchar sweep task --run {}` "
        "as one task of an srun step of {} tasks, one per node, which places it in the world (the job `jetchar sweep "
        "submit --slurm` writes does); this process is no task of such a step (no SLURM_STEP_ID, or SLURM_NTASKS "
        "unset or 1)",
        run.run_id, nodes, nodes, run.run_id, nodes));
  }
  if (world->nnodes != nodes) {
    throw std::invalid_argument(
        fmt::format("run {} is a run of {} nodes (workload.distributed.nnodes {}), but the srun step has {} tasks "
                    "(SLURM_NTASKS {}); valid: a step of {} tasks, one per node",
                    run.run_id, nodes, nodes, world->nnodes, world->nnodes, nodes));
  }
  return *world;
}

void place_in_world(proto::ExperimentSpec& spec, const SlurmStepWorld& world) {
  auto* d = spec.mutable_workload()->mutable_distributed();
  d->set_node_rank(world.node_rank);
  d->set_master_addr(world.master_addr);
  d->set_master_port(world.master_port);
}

std::optional<std::string> node_storing_run(const fs::path& results, const std::string& sweep_name,
                                            const std::string& run_id) {
  std::error_code ec;
  std::vector<fs::path> nodes;
  for (const auto& entry : fs::directory_iterator(results / "nodes", ec)) nodes.push_back(entry.path());
  // In name order, so that every node names the same one.
  std::sort(nodes.begin(), nodes.end());
  for (const auto& node : nodes) {
    if (!fs::exists(node / "results.db")) continue;
    std::optional<results::ResultsStore> store;
    try {
      store.emplace(node / "results.db", results::ResultsStore::Access::kReadOnly);
    } catch (const std::invalid_argument&) {
      continue;  // a node whose first task is creating its store right now: it holds no runs yet
    }
    for (const auto& device : store->devices_of(sweep_name, run_id)) {
      const auto stored = store->load(sweep_name, run_id, device);
      if (stored && stored->status() != proto::INTERRUPTED) return node.filename().string();
    }
  }
  return std::nullopt;
}

void check_multi_node_runs_outside_slurm(const SweepPlan& plan, const std::string& source) {
  for (const auto& run : plan.runs) {
    const std::uint32_t nodes = run_node_count(run.spec);
    if (nodes == 1 || run.spec.workload().distributed().master_port() != 0) continue;
    throw std::invalid_argument(fmt::format(
        "{}: run {} is a run of {} nodes (workload.distributed.nnodes {}) without master_port: only a fleet's Slurm "
        "job places its nodes (node rank, node 0's address and port); submit the sweep with `jetchar sweep submit "
        "--slurm`, or give master_port, master_addr and each machine's node_rank to start it by hand on every machine",
        source, run.run_id, nodes, nodes));
  }
}

}  // namespace jetchar::sweeps
