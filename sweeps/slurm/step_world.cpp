#include "sweeps/slurm/step_world.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "sweeps/slurm/hostlist.h"

namespace jetchar::sweeps {
namespace {

// A decimal number of at most 18 digits (so it fits); nullopt for anything else.
std::optional<std::uint64_t> number(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::stoull(text);
}

// The first of `names` that is set: its name and value.
std::optional<std::pair<std::string, std::string>> first_set(const Environment& environment,
                                                             std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto value = environment(name)) return std::pair<std::string, std::string>(name, *value);
  }
  return std::nullopt;
}

}  // namespace

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
  };
}

std::optional<SlurmStepWorld> slurm_step_world(const Environment& environment,
                                               const std::optional<std::string>& master_addr,
                                               std::optional<std::uint32_t> master_port) {
  if (!first_set(environment, {"SLURM_STEP_ID", "SLURM_STEPID"})) return std::nullopt;
  const auto procid = environment("SLURM_PROCID");
  const auto ntasks = environment("SLURM_NTASKS");
  if (!procid || !ntasks) return std::nullopt;

  const auto tasks = number(*ntasks);
  if (!tasks || *tasks < 1 || *tasks > kMaxSlurmNodes) {
    throw std::invalid_argument(fmt::format(
        "SLURM_NTASKS '{}' is not a number of tasks; valid: 1 to {} (each task of the srun step is one node of the "
        "data-parallel world)",
        *ntasks, kMaxSlurmNodes));
  }
  if (*tasks == 1) return std::nullopt;
  SlurmStepWorld world;
  world.nnodes = static_cast<std::uint32_t>(*tasks);
  const auto rank = number(*procid);
  if (!rank || *rank >= *tasks) {
    throw std::invalid_argument(
        fmt::format("SLURM_PROCID '{}' is not a task of the srun step; valid: 0 to {} "
                    "(SLURM_NTASKS is {})",
                    *procid, *tasks - 1, *tasks));
  }
  world.node_rank = static_cast<std::uint32_t>(*rank);

  if (master_addr) {
    world.master_addr = *master_addr;
  } else {
    const auto nodes = first_set(environment, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
    if (!nodes) {
      throw std::invalid_argument(
          "none of SLURM_STEP_NODELIST, SLURM_JOB_NODELIST, SLURM_NODELIST is set, one of which names node 0 (the "
          "node of task 0); valid: a Slurm hostlist such as b[1-3], or node 0's address given (--master-addr)");
    }
    try {
      world.master_addr = expand_hostlist(nodes->second).front();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", nodes->first, e.what()));
    }
  }

  if (master_port) {
    world.master_port = *master_port;
  } else {
    const auto job = first_set(environment, {"SLURM_JOB_ID", "SLURM_JOBID"});
    if (!job) {
      throw std::invalid_argument(
          fmt::format("neither SLURM_JOB_ID nor SLURM_JOBID is set, from which the rendezvous port ({} + job id % {}) "
                      "comes; valid: a job id, or the port given (--master-port)",
                      kSlurmPortBase, kSlurmPortSpan));
    }
    const auto id = number(job->second);
    if (!id) {
      throw std::invalid_argument(fmt::format(
          "{} '{}' is not a job id, from which the rendezvous port ({} + job id % {}) comes; valid: a number, "
          "or the port given (--master-port)",
          job->first, job->second, kSlurmPortBase, kSlurmPortSpan));
    }
    world.master_port = kSlurmPortBase + static_cast<std::uint32_t>(*id % kSlurmPortSpan);
  }
  return world;
}

}  // namespace jetchar::sweeps
