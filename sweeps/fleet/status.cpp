#include "sweeps/fleet/status.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

#include "results/location.h"
#include "results/store.h"
#include "sweeps/board_kinds.h"
#include "sweeps/fleet/submission.h"
#include "sweeps/journal.h"
#include "sweeps/slurm/accounting.h"
#include "sweeps/slurm/client.h"
#include "sweeps/spec_io.h"

namespace jetchar::sweeps {

namespace fs = std::filesystem;

FleetStatus fleet_status(const fs::path& results) {
  const results::ResultsLocation location{results};
  if (!fs::exists(location.spec())) {
    throw std::invalid_argument(
        fmt::format("{} has no sweep.textproto: not a submitted sweep's results directory", results.string()));
  }
  const auto sweep = load_sweep_spec(location.spec());
  FleetStatus status;
  status.sweep_name = fleet_sweep_name(sweep, fs::absolute(results).lexically_normal());
  std::set<std::string> planned;
  for (const auto& kind : board_kind_names(sweep)) {
    for (const auto& run : plan_board_kind(sweep, kind, location.spec().string()).runs) planned.insert(run.run_id);
  }
  status.planned = planned.size();

  std::set<std::string> stored;
  std::error_code ec;
  std::vector<fs::path> nodes;
  for (const auto& entry : fs::directory_iterator(results / "nodes", ec)) nodes.push_back(entry.path());
  std::sort(nodes.begin(), nodes.end());
  for (const auto& node : nodes) {
    FleetNodeStatus row;
    row.node = node.filename().string();
    std::set<std::string> devices;
    if (fs::exists(node / "results.db")) {
      const results::ResultsStore store(node / "results.db", results::ResultsStore::Access::kReadOnly);
      for (const auto& result : store.load_all(status.sweep_name)) {
        stored.insert(result.run_id());
        devices.insert(result.context().device_id().empty() ? "-" : result.context().device_id());
        ++(result.status() == proto::OK ? row.done : row.failed);
      }
    }
    row.devices.assign(devices.begin(), devices.end());
    if (fs::exists(node / "journal")) {
      const SweepJournal journal(node / "journal");
      for (const auto& run : journal.interrupted()) row.running.push_back(run);
    }
    status.nodes.push_back(std::move(row));
  }
  for (auto& row : status.nodes) {
    const auto rerun = std::stable_partition(row.running.begin(), row.running.end(),
                                             [&](const std::string& run) { return stored.count(run) == 0; });
    row.interrupted_rerun.assign(rerun, row.running.end());
    row.running.erase(rerun, row.running.end());
  }
  for (const auto& run : planned) status.planned_stored += stored.count(run);
  status.merged_store = location.store();
  if (fs::exists(location.store())) {
    const results::ResultsStore merged(location.store(), results::ResultsStore::Access::kReadOnly);
    status.merged_runs = merged.load_all(status.sweep_name).size();
  }
  std::ifstream jobs_file(results / "slurm" / "jobs");
  for (std::string kind, id, node; jobs_file >> kind >> id >> node;) status.job_ids.push_back(id);
  return status;
}

SlurmJobsView slurm_jobs_view(const std::vector<std::string>& job_ids) {
  SlurmJobsView view;
  if (job_ids.empty()) return view;
  std::string list;
  for (const auto& id : job_ids) list += (list.empty() ? "" : ",") + id;
  try {
    const auto sacct = run_slurm_program(
        "sacct", {"--noheader", "--parsable2", "--allocations", "--jobs", list, "--format", std::string(kSacctFormat)});
    if (sacct.exit_code == 0 && sacct.output.find("disabled") == std::string::npos) {
      try {
        view.by_node = sacct_states_by_node(parse_sacct(sacct.output));
        view.source = SlurmJobsView::Source::kSacct;
        return view;
      } catch (const std::invalid_argument& e) {
        view.note = fmt::format("sacct answered in another form ({})", e.what());
      }
    } else {
      view.note = fmt::format("sacct: {}", sacct.output.substr(0, sacct.output.find('\n')));
    }
    const auto squeue = run_slurm_program("squeue", {"-h", "-j", list, "-o", "%i|%j|%T|%N|%r"});
    if (squeue.exit_code != 0) {
      view.note += fmt::format("; squeue failed too ({})", squeue.output.substr(0, squeue.output.find('\n')));
      return view;
    }
    view.source = SlurmJobsView::Source::kSqueue;
    view.squeue = squeue.output;
  } catch (const std::exception& e) {
    view.source = SlurmJobsView::Source::kNone;
    view.note = fmt::format("Slurm not reachable from here ({})", e.what());
  }
  return view;
}

}  // namespace jetchar::sweeps
