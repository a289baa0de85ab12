// One sweep from its spec file to its stored runs: what `sweep run`, `sweep resume` and `sweep
// task` (a fleet's Slurm task) do between opening the board and printing the results. The session
// loads and plans the spec, takes the results folder (one writer, the store, the spec's copy), and
// runs the plan, or the adaptive-profiling loop when the spec has one, through a RunExecutor,
// telling a SweepObserver what happens. It writes nothing until open_results(): a sweep refused
// before that (a bad spec, a plan the board cannot run) leaves no results folder behind.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "proto/run_result.pb.h"
#include "proto/sweep_spec.pb.h"
#include "results/location.h"
#include "results/store.h"
#include "sweeps/adaptive_profile_sweep.h"
#include "sweeps/plan.h"
#include "sweeps/runner.h"
#include "sweeps/slurm/step_world.h"
#include "sysfs/writer_lock.h"

namespace jetchar::sweeps {

/// The runs one fleet task carries out, and the sweep name every node's store files them under.
struct RunSelection {
  std::set<std::string> run_ids;
  std::string sweep_name;
  /// This node's place in the world of the selected multi-node runs (a fleet's srun step:
  /// sweeps/fleet/multi_node_run.h), filled into their specs. A node other than 0 carries its
  /// part of them out and stores nothing: node 0 records each.
  std::optional<SlurmStepWorld> world = std::nullopt;
};

struct SweepRequest {
  std::filesystem::path spec_file;
  std::filesystem::path results_dir;
  std::string kind;                       ///< the board kind whose runs to plan ("" without kinds)
  std::optional<RunSelection> selection;  ///< only these runs (a fleet task)
  bool wait_for_writer = false;           ///< wait for another sweep's lock on the folder instead of refusing
};

/// What a session tells as it goes; every method has a silent default.
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  /// After every run, with the progress so far.
  virtual void run_done(const SweepProgress&, const PlannedRun&, const proto::RunResult&) {}
  /// After each mode the adaptive loop profiled.
  virtual void mode_profiled(const ProfiledMode&) {}
  /// Where the runner writes a line per run; nullptr for none.
  virtual std::ostream* log() { return nullptr; }
};

struct SweepOutcome {
  SweepProgress progress;
  bool stopped = false;                                ///< stop_requested ended it after a run
  std::optional<AdaptiveProfileSweepResult> adaptive;  ///< for a spec with adaptive_profile
};

class SweepSession {
 public:
  /// Loads and plans `request.spec_file` and checks that the results folder holds this sweep or
  /// none (std::invalid_argument naming the remedy otherwise). Writes nothing.
  explicit SweepSession(SweepRequest request);
  ~SweepSession();
  SweepSession(const SweepSession&) = delete;
  SweepSession& operator=(const SweepSession&) = delete;

  const proto::SweepSpec& sweep() const { return sweep_; }
  const SweepPlan& plan() const { return plan_; }
  const results::ResultsLocation& location() const { return location_; }
  /// The name the runs are stored under: the fleet's, the spec's, or the results folder's.
  const std::string& name() const { return name_; }
  /// False on a node other than 0 of a multi-node run's world, which stores nothing.
  bool records_runs() const;

  /// Takes the results folder for writing: its writer lock (sysfs::LockHeld when another sweep
  /// holds it, unless the request waits), the store (std::invalid_argument for a results.db that
  /// is not one, with the folder as it was) and the spec's copy.
  void open_results();

  /// After open_results(): runs every run not yet stored, or the adaptive loop, through
  /// `executor`; stops after the current run once `stop_requested` returns true.
  SweepOutcome run(RunExecutor& executor, const std::function<bool()>& stop_requested, SweepObserver& observer);

  /// The runs stored under name(), after open_results().
  std::vector<proto::RunResult> stored_results() const;
  /// The store's file.
  std::filesystem::path store_file() const { return location_.store(); }

 private:
  SweepRequest request_;
  proto::SweepSpec sweep_;
  SweepPlan plan_;
  results::ResultsLocation location_;
  std::string spec_text_;
  bool spec_stored_ = false;
  std::string name_;
  std::optional<sysfs::WriterLock> writer_;
  std::optional<results::ResultsStore> store_;
};

}  // namespace jetchar::sweeps
