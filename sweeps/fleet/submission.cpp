#include "sweeps/fleet/submission.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <stdexcept>

#include "results/location.h"
#include "sweeps/board_kinds.h"
#include "sweeps/fleet/multi_node_run.h"
#include "sweeps/plan.h"
#include "sweeps/slurm/client.h"
#include "sweeps/spec_io.h"
#include "sysfs/whole_file.h"

namespace jetchar::sweeps {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string fleet_sweep_name(const proto::SweepSpec& sweep, const fs::path& results) {
  return sweep.name().empty() ? results.filename().string() : sweep.name();
}

fs::path fleet_results_dir(const proto::SweepSpec& sweep, const std::string& option) {
  fs::path results = option;
  if (results.empty())
    results = !sweep.results().empty() ? fs::path(sweep.results()) : fs::path("results") / sweep.name();
  return fs::absolute(results).lexically_normal();
}

FleetPlan plan_fleet(const FleetSubmitRequest& request) {
  const std::string source = request.spec.string();
  const auto sweep = load_sweep_spec(request.spec);
  check_board_kinds(sweep, source);
  FleetPlan plan;
  SlurmSubmitOptions& o = plan.options;
  o.results = fleet_results_dir(sweep, request.results);
  o.sweep_name = fleet_sweep_name(sweep, o.results);
  o.jetchar = request.jetchar;
  o.partition = request.partition;
  o.constraint = request.constraint;
  o.runs_per_task = request.runs_per_task;
  o.node_config = request.node_config;
  o.redact_serial = request.redact_serial;
  if (!request.nodes.empty()) {
    if (request.nodes.find_first_not_of("0123456789") == std::string::npos) {
      if (request.nodes.size() > 6)
        throw std::invalid_argument(fmt::format("--nodes {}: too many nodes", request.nodes));
      o.node_count = static_cast<unsigned>(std::stoul(request.nodes));
    } else {
      o.nodes = parse_node_names(request.nodes, "--nodes");
    }
  }
  // Each board kind of the spec: its own runs (those of one machine in chunks, each multi-node
  // run a job of its own), its feature, its nodes.
  const auto count_runs = [](const SweepPlan& kind_plan, SlurmKindRuns& runs) {
    for (const auto& run : kind_plan.runs) {
      if (const std::uint32_t nodes = run_node_count(run.spec); nodes > 1) {
        runs.multi_node_runs.push_back({run.run_id, nodes});
      } else {
        ++runs.run_count;
      }
    }
  };
  if (sweep.kinds().empty()) {
    SlurmKindRuns runs{"", o.constraint, o.nodes, 0};
    count_runs(plan_sweep(sweep, source), runs);
    plan.kinds.push_back(std::move(runs));
  } else {
    if (!o.nodes.empty() || !o.constraint.empty()) {
      throw std::invalid_argument(fmt::format(
          "{} names board kinds: each kind's nodes and feature come from its `kinds {{ constraint: ... nodes: ... }}`, "
          "so --nodes takes only a count here and --constraint is not used",
          source));
    }
    for (const auto& kind : sweep.kinds()) {
      SlurmKindRuns runs{kind.name(), board_kind_feature(kind), {}, 0};
      if (!kind.nodes().empty()) runs.nodes = parse_node_names(kind.nodes(), "kind " + kind.name() + " nodes");
      count_runs(plan_board_kind(sweep, kind.name(), source), runs);
      plan.kinds.push_back(std::move(runs));
    }
  }
  plan.submission = plan_slurm_submission(plan.kinds, o);
  return plan;
}

FleetSubmitted submit_fleet(const FleetPlan& plan, const fs::path& spec) {
  const fs::path results = plan.options.results;
  const fs::path slurm_dir = results / "slurm";
  // The shared directory belongs to one sweep, as with `sweep run`.
  const results::ResultsLocation location{results};
  // The copy holds the spec's paths resolved (absolute): the nodes' tasks read it, not the spec.
  const std::string spec_text = resolved_sweep_spec_text(spec);
  const bool spec_stored = location.holds_sweep_spec(spec_text, "use another --results directory");
  fs::create_directories(slurm_dir);
  if (!spec_stored) location.store_sweep_spec(spec_text);
  const auto write_script = [&](const SlurmScript& script) {
    const fs::path file = slurm_dir / script.name;
    sysfs::replace_file(file, script.text);
    return file.string();
  };
  FleetSubmitted submitted;
  std::string dependency = "afterany";
  // The multi-node runs' jobs first (sweeps/slurm/submission.h says why).
  for (const auto& script : plan.submission.worlds) {
    const std::string id = sbatch({write_script(script)});
    dependency += ":" + id;
    std::ofstream(slurm_dir / "jobs", std::ios::app)
        << fmt::format("run {} {}\n", id, script.nodes.empty() ? "-" : fmt::format("{}", fmt::join(script.nodes, ",")));
    submitted.world_jobs.push_back(id);
  }
  for (const auto& script : plan.submission.arrays) {
    const std::string id = sbatch({write_script(script)});
    dependency += ":" + id;
    std::ofstream(slurm_dir / "jobs", std::ios::app)
        << fmt::format("array {} {}\n", id, script.node.empty() ? "-" : script.node);
    submitted.array_jobs.push_back(id);
  }
  submitted.merge_job = sbatch({"--dependency=" + dependency, write_script(plan.submission.merge)});
  std::ofstream(slurm_dir / "jobs", std::ios::app) << fmt::format("merge {} -\n", submitted.merge_job);
  return submitted;
}

}  // namespace jetchar::sweeps
