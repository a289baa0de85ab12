// A sweep as Slurm jobs (`jetchar sweep submit --slurm`): the plan's runs cut into chunks of K
// runs, one job-array task per chunk, each task `--exclusive` on its node (a board's rails measure
// the whole board) and `--requeue`able, running `jetchar sweep task` against that node's board
// into a per-node store under the shared results directory; then one job, dependent on every
// array with `afterany`, that merges the stores and writes the report.
//
// With a node list the chunks are dealt round-robin to the nodes and each node gets its own array
// pinned to it (`--nodelist`): a task killed with its node is requeued onto the same board, whose
// change journal it restores first. Without one, a single array runs on whatever nodes Slurm
// picks (at most N at a time with `--nodes N`: the array's `%N` limit).
//
// A sweep of several board kinds (sweeps/board_kinds.h) gets this per kind: the kind's own
// runs, its arrays submitted with `--constraint=<the kind's feature>` (and pinned to the kind's
// nodes where the spec lists them), every task running `sweep task --kind NAME`.
//
// A run of several machines (workload.distributed.nnodes = M > 1) is no chunk: it is one job of M
// nodes (`--nodes=M --ntasks-per-node=1 --exclusive --requeue`), pinned to M nodes of the node
// list where one is given (the list's nodes in turn from run to run, so that a requeued job comes
// back to the same boards), whose script starts `jetchar sweep task --run RUN_ID` on every node as
// one srun step (sweeps/fleet/multi_node_run.h: node 0 records the run). The chunks are cut from
// the remaining runs of one machine, in plan order, and numbered from 0 within each kind. The
// multi-node jobs are submitted before the arrays: a job Slurm refuses (more nodes than the
// partition holds) is then refused before any array is queued, and under a strict-priority
// scheduler a job waiting for M nodes at once is not starved by the arrays' tasks.
//
// A task killed on one node may be requeued onto another (unpinned arrays), leaving the first
// node's board changed. So the final job first restores, on every node that ran a task of the
// sweep (a directory under results/nodes/), the board's pending change journal: its own node in
// place, each other node in a job of its own (`sbatch --wait --nodelist`), `sweep task
// --restore-only`, a no-op where nothing is pending. A node Slurm cannot run a job on then (down,
// drained) is named in the job's output: its next task, or jetchar-restore.service at boot,
// restores it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetchar::sweeps {

struct SlurmSubmitOptions {
  std::filesystem::path results;  ///< the sweep's shared results directory (absolute)
  std::string sweep_name;
  std::string jetchar;                 ///< the jetchar executable as the nodes see it
  std::string partition;               ///< empty: the cluster's default
  std::string constraint;              ///< a node feature naming the board kind ("agx-orin"); empty: any
  std::string kind;                    ///< the sweep's board kind these runs are of; empty: no kinds
  std::vector<std::string> nodes;      ///< pin chunks to these nodes, round-robin
  std::optional<unsigned> node_count;  ///< at most this many tasks at a time (unpinned)
  std::size_t runs_per_task = 1;
  std::string node_config = "/etc/jetchar/node.textproto";  ///< "%n": the node's name
  bool redact_serial = false;
};

struct SlurmScript {
  std::string name;                 ///< file name under results/slurm/
  std::string kind;                 ///< the board kind of an array's runs; empty without kinds
  std::string node;                 ///< the node a pinned array runs on; empty otherwise
  std::vector<std::size_t> chunks;  ///< array indexes (chunk numbers); empty for the other jobs
  std::string run_id;               ///< a multi-node run's job: its run; empty otherwise
  std::size_t run_nodes = 0;        ///< a multi-node run's job: its nodes (M)
  std::vector<std::string> nodes;   ///< a multi-node run's job: the M nodes it is pinned to; empty: any
  std::string text;                 ///< the sbatch script
};

struct SlurmSubmission {
  std::vector<SlurmScript> worlds;  ///< one job per multi-node run, submitted first
  std::vector<SlurmScript> arrays;
  SlurmScript merge;  ///< submitted with --dependency=afterany:<every other job>
  std::size_t runs = 0;
  std::size_t chunks = 0;
};

/// Chunk `chunk` of a plan of `run_count` runs, K runs each: [first, last).
struct ChunkRange {
  std::size_t first = 0;
  std::size_t last = 0;
};
ChunkRange chunk_range(std::size_t chunk, std::size_t runs_per_task, std::size_t run_count);

/// The scripts for a plan of `run_count` runs. Throws std::invalid_argument naming the option
/// and value for K = 0, an empty or repeated node name, a node name Slurm's hostlist syntax
/// would read differently ("b[1-3]": expand it with `scontrol show hostnames`), or both a node
/// list and a node count.
SlurmSubmission plan_slurm_submission(std::size_t run_count, const SlurmSubmitOptions& options);

/// A run of several machines: one job of `nodes` nodes.
struct SlurmMultiNodeRun {
  std::string run_id;  ///< as `sweep task --run` names it ("0003-r0"; "<kind>.0003-r0" with kinds)
  std::size_t nodes = 2;
};

/// The runs of one board kind, as the submission plans them.
struct SlurmKindRuns {
  std::string kind;                ///< its name (run ids "<kind>.<run>")
  std::string constraint;          ///< its Slurm node feature
  std::vector<std::string> nodes;  ///< pin its chunks to these nodes; empty: any node with the feature
  std::size_t run_count = 0;       ///< its runs of one machine, cut into chunks
  std::vector<SlurmMultiNodeRun> multi_node_runs = {};  ///< its runs of several machines, a job each
};

/// The scripts for a sweep of several kinds: each kind's arrays as plan_slurm_submission plans
/// them (with the kind's constraint and nodes; `options.constraint` and `options.nodes` are not
/// used, `options.node_count` limits each unpinned kind's array: a kind pinned to its nodes runs
/// one task per node at a time), a job per multi-node run, and one final job after all of them.
/// Throws std::invalid_argument as plan_slurm_submission does, naming the kind; and for a
/// multi-node run of more nodes than the kind's node list names or the node count allows, naming
/// the run, its nodes and the nodes given.
SlurmSubmission plan_slurm_submission(const std::vector<SlurmKindRuns>& kinds, const SlurmSubmitOptions& options);

/// "b1,b2,b3" -> {"b1","b2","b3"}; throws std::invalid_argument naming `option` and the value.
std::vector<std::string> parse_node_names(std::string_view list, std::string_view option);

/// `word` quoted for bash (single quotes).
std::string shell_quoted(std::string_view word);

/// The node config file for `node`: every "%n" in `pattern` replaced by the node name.
std::string node_config_path(std::string_view pattern, std::string_view node);

}  // namespace jetchar::sweeps
