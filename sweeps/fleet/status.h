// `jetchar sweep status DIR|JOBID`: what each node of a submitted sweep has done, from its store
// and its sweep journal under the shared results directory, and what Slurm says of the sweep's
// jobs (sacct; squeue where the cluster keeps no accounting).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace jetchar::sweeps {

struct FleetNodeStatus {
  std::string node;
  std::vector<std::string> devices;  ///< the boards (device ids) its runs recorded
  std::size_t done = 0;              ///< runs stored OK
  std::size_t failed = 0;            ///< runs stored with another status
  std::vector<std::string> running;  ///< started, not finished, and stored by no node: a live task's run
  /// Started here by a task that was killed, and stored since (by the requeued task, here or on
  /// another node): not running any more.
  std::vector<std::string> interrupted_rerun;
};

struct FleetStatus {
  std::string sweep_name;
  std::vector<FleetNodeStatus> nodes;  ///< by node name
  std::size_t planned = 0;             ///< runs of every board kind's plan
  std::size_t planned_stored = 0;      ///< of those, stored by some node
  std::filesystem::path merged_store;
  std::optional<std::size_t> merged_runs;  ///< nullopt until the final job wrote the merged store
  std::vector<std::string> job_ids;        ///< the jobs submit recorded (DIR/slurm/jobs)
};

/// The status of the sweep submitted into `results`. Throws std::invalid_argument when the
/// directory holds no submitted sweep (no sweep.textproto).
FleetStatus fleet_status(const std::filesystem::path& results);

struct SlurmJobsView {
  enum class Source { kSacct, kSqueue, kNone };
  Source source = Source::kNone;
  std::string note;  ///< why sacct was not used, or why nothing could be asked
  /// sacct: array tasks and jobs per node and state (sweeps/slurm/accounting.h).
  std::map<std::string, std::map<std::string, std::size_t>> by_node;
  std::string squeue;  ///< squeue's lines "ID|NAME|STATE|NODES|REASON" of pending and running jobs
};

/// Slurm's view of `job_ids`: sacct, else (no accounting) squeue, else why neither answered.
SlurmJobsView slurm_jobs_view(const std::vector<std::string>& job_ids);

}  // namespace jetchar::sweeps
