// `jetchar sweep submit --slurm`: a sweep spec turned into the Slurm jobs of a fleet (its board
// kinds, chunks and scripts: sweeps/slurm/submission.h, sweeps/board_kinds.h), and
// those jobs written under the shared results directory and submitted with sbatch.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "proto/sweep_spec.pb.h"
#include "sweeps/slurm/submission.h"

namespace jetchar::sweeps {

struct FleetSubmitRequest {
  std::filesystem::path spec;
  std::string results;  ///< the shared results directory; empty: the spec's, else results/<name>
  std::string jetchar;  ///< the jetchar executable as the nodes see it
  std::string partition;
  std::string nodes;  ///< "b1,b2,b3" or a count "4"; empty: any node, no limit
  std::string constraint;
  std::string node_config = "/etc/jetchar/node.textproto";
  std::size_t runs_per_task = 1;
  bool redact_serial = false;
};

struct FleetPlan {
  SlurmSubmitOptions options;
  std::vector<SlurmKindRuns> kinds;  ///< one unnamed kind for a spec without kinds
  SlurmSubmission submission;
};

/// The sweep's name as every node's store files its runs: the spec's, else the results directory's.
std::string fleet_sweep_name(const proto::SweepSpec& sweep, const std::filesystem::path& results);

/// The shared results directory (absolute): `option`, else the spec's, else results/<name>.
std::filesystem::path fleet_results_dir(const proto::SweepSpec& sweep, const std::string& option);

/// Plans the jobs; writes and submits nothing. Throws std::invalid_argument naming the option or
/// the spec for what cannot be submitted: a bad node list or count, a spec with board kinds
/// given a node list or --constraint (each kind names its own), a plan of no runs, a multi-node
/// run of more nodes than the node list names.
FleetPlan plan_fleet(const FleetSubmitRequest& request);

struct FleetSubmitted {
  std::vector<std::string> world_jobs;  ///< one per plan.submission.worlds (multi-node runs), in order
  std::vector<std::string> array_jobs;  ///< one per plan.submission.arrays, in order
  std::string merge_job;
};

/// Writes the spec's copy and the scripts under the results directory (refusing a directory that
/// holds another spec's results), submits every multi-node run's job and every array, then the
/// final job with --dependency=afterany on all of them, and appends the job ids to DIR/slurm/jobs
/// ("run ID NODE,NODE...|-", "array ID NODE|-", "merge ID -"). Throws std::runtime_error with sbatch's output when a
/// submission fails (jobs submitted before it stay submitted and recorded).
FleetSubmitted submit_fleet(const FleetPlan& plan, const std::filesystem::path& spec);

}  // namespace jetchar::sweeps
