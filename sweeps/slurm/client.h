// Slurm's own commands as jetchar runs them for a fleet (sbatch, scontrol, sacct, squeue): found
// on PATH and run with an argument vector (no shell), each with a time limit.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "jetson/control/nvpmodel_tool.h"

namespace jetchar::sweeps {

/// `program` from PATH, as an absolute path; nullopt when no directory of PATH has it.
std::optional<std::string> find_program(const std::string& program);

/// Runs Slurm's `program` with `arguments` (60 s at most). Throws std::runtime_error naming the
/// program when it is not on PATH (this machine is then no Slurm client).
jetson::ProcessResult run_slurm_program(const std::string& program, std::vector<std::string> arguments);

/// `sbatch --parsable ARGUMENTS...`: the job id. Throws std::runtime_error with sbatch's output
/// when it fails or answers no job id.
std::string sbatch(std::vector<std::string> arguments);

/// `scontrol update nodename=NODE state=drain reason=REASON` (the reason cut to 200 characters):
/// "node NODE drained", or why draining failed. Never throws: it is called while failing already.
std::string drain_node(const std::string& node, const std::string& reason);

/// The results directory of a job that `jetchar sweep submit` made (its batch script lies in
/// DIR/slurm/, beside DIR/sweep.textproto), from `scontrol show job`. Throws std::invalid_argument
/// naming the job when slurmctld does not know it or it is not such a job.
std::filesystem::path results_of_job(const std::string& job);

}  // namespace jetchar::sweeps
