// A sweep's run of several machines (workload.distributed.nnodes = M > 1) on a fleet: it is no
// chunk of a job array but a Slurm job of its own of M nodes (sweeps/slurm/submission.h), whose
// script starts `jetchar sweep task DIR --run RUN_ID` on every node as one srun step. Each task
// takes its place in the run's world from the step (sweeps/slurm/step_world.h: node rank
// SLURM_PROCID, node 0's address the step's first node, the port from the job id), trains its
// part on its own board, and only node 0 stores the run, the world's record: the others store
// nothing for it, so the merged store holds it once. Every node decides whether the run is still
// to do from the same stores (any node's record of it that is not INTERRUPTED), so that a
// requeued job either runs it on every node or on none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "proto/experiment_spec.pb.h"
#include "sweeps/plan.h"
#include "sweeps/slurm/step_world.h"

namespace jetchar::sweeps {

/// The machines a run's world spans: workload.distributed.nnodes, unset = 1.
std::uint32_t run_node_count(const proto::ExperimentSpec& spec);

/// The runs a fleet's array tasks share out, in plan order: those of one machine. Chunk K of
/// `sweep task --chunk K` is cut from these; a multi-node run is a job of its own (`--run`).
std::vector<PlannedRun> single_node_runs(const SweepPlan& plan);

/// This node's place in the world of the multi-node run `run`, from the environment of the srun
/// step it runs in; a master_addr or master_port the run's spec gives stands. Throws
/// std::invalid_argument naming the run, its nnodes and what is needed outside an srun step of
/// several tasks or in one of another number of tasks, and as slurm_step_world does for a
/// variable srun did not set as it sets it.
SlurmStepWorld step_world_of_run(const PlannedRun& run, const Environment& environment);

/// Fills workload.distributed's node_rank, master_addr and master_port of `spec` from `world`.
/// They are no setting columns (results/schema/setting_columns.h): the run keys as it would
/// without them.
void place_in_world(proto::ExperimentSpec& spec, const SlurmStepWorld& world);

/// The node whose store under `results`/nodes/ holds a record of run `run_id` of sweep
/// `sweep_name` that is not INTERRUPTED (one that is runs again), nullopt when none does. A store
/// another node is creating right now holds no runs yet.
std::optional<std::string> node_storing_run(const std::filesystem::path& results, const std::string& sweep_name,
                                            const std::string& run_id);

/// Refuses (std::invalid_argument naming the run and the remedy) a multi-node run of `plan` that
/// gives no master_port when the sweep is not run as a fleet's Slurm jobs (`sweep run`, `sweep
/// resume`): no Slurm job places its nodes, so node 0 would wait for machines nobody starts.
void check_multi_node_runs_outside_slurm(const SweepPlan& plan, const std::string& source);

}  // namespace jetchar::sweeps
