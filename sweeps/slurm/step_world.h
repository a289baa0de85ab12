// The data-parallel world of a `jetchar train` that srun started as one task of a step of
// several (`srun -N3 -n3 jetchar train ...`): each task is one node of the world, as torchrun's
// --nnodes/--node-rank would make it, read from the environment srun gives every task (Slurm
// 22.05, srun(1) "OUTPUT ENVIRONMENT VARIABLES"):
//   - a task srun started has SLURM_STEP_ID (or its older name SLURM_STEPID); a batch script's
//     own process has neither, although it has the job's SLURM_NTASKS and SLURM_PROCID=0, so it is
//     never taken for node 0 of a world whose other nodes nobody starts;
//   - nnodes = SLURM_NTASKS (the step's tasks), node_rank = SLURM_PROCID (0 .. nnodes-1);
//   - master_addr = the first name of SLURM_STEP_NODELIST (else SLURM_JOB_NODELIST, then
//     SLURM_NODELIST), a hostlist (sweeps/slurm/hostlist.h): the node task 0 runs on under
//     srun's block and cyclic distributions;
//   - master_port = kSlurmPortBase + SLURM_JOB_ID (else SLURM_JOBID) % kSlurmPortSpan: every task
//     of a step derives the same port, and two jobs on one node differ unless their ids are
//     3000 apart. The ports (29500 to 32499) stay below Linux's default ephemeral range
//     (net.ipv4.ip_local_port_range, 32768 to 60999), from which every outgoing connection and
//     srun's own I/O listeners on node 0 take theirs: a port in that range can be taken by the
//     step's own srun before node 0 binds it.
// An address or port the user gave stands, and its variable is not read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace jetchar::sweeps {

inline constexpr std::uint32_t kSlurmPortBase = 29500;
inline constexpr std::uint32_t kSlurmPortSpan = 3000;
/// As `jetchar train --nnodes` allows.
inline constexpr std::uint32_t kMaxSlurmNodes = 1024;

/// A variable of the environment, nullopt when it is not set.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;

/// This process's environment (getenv).
Environment process_environment();

struct SlurmStepWorld {
  std::uint32_t nnodes = 1;
  std::uint32_t node_rank = 0;
  std::string master_addr;
  std::uint32_t master_port = 0;
};

/// The world of a task of a multi-task srun step; nullopt outside one (no SLURM_STEP_ID, no
/// SLURM_PROCID, or SLURM_NTASKS unset or 1). `master_addr` and `master_port`, when given, stand.
/// Throws std::invalid_argument naming the variable, its value and what is valid, for a
/// SLURM_NTASKS or SLURM_PROCID that is not a number in range, a node list that is not a
/// hostlist, a SLURM_JOB_ID that is not a number, or none of the variables an address or port
/// comes from.
std::optional<SlurmStepWorld> slurm_step_world(const Environment& environment,
                                               const std::optional<std::string>& master_addr,
                                               std::optional<std::uint32_t> master_port);

}  // namespace jetchar::sweeps
