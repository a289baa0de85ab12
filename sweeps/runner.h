// The sweep loop: runs a plan's runs in order, skipping those already in the store, with the
// resume journal around each run, progress for people and for systemd, and a clean stop on
// request. What one run does (mode, baseload, cache policy, workload, energy) is the executor's.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "proto/run_result.pb.h"
#include "results/store.h"
#include "sweeps/journal.h"
#include "sweeps/plan.h"
#include "sweeps/systemd_notifier.h"

namespace jetchar::sweeps {

/// Carries out one planned run. Run-level failures (OOM, a data set that vanished, a meter that
/// disappeared) are returned as a result with that status, not thrown; an exception means the
/// sweep itself cannot go on (the board cannot be controlled, a signal arrived).
class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  virtual proto::RunResult execute(const PlannedRun& run) = 0;
  /// Stored with a run when it is given up; used for a run the executor threw on.
  virtual std::string describe() const = 0;
  /// The power samples of the run execute() last returned, when its spec asked for them
  /// (measurement.power_samples); the sweep stores them with the run. Empty otherwise.
  virtual std::vector<results::StoredPowerSample> take_power_samples() { return {}; }

  /// Set by the sweep: `alive` pings the service watchdog. The executor calls heartbeat() as a run
  /// makes progress (every minibatch, every cool-down step), so that a run longer than WatchdogSec
  /// is not taken for a hang while a run that stops progressing still is.
  void set_heartbeat(std::function<void()> alive) { heartbeat_ = std::move(alive); }

 protected:
  void heartbeat() const {
    if (heartbeat_) heartbeat_();
  }

 private:
  std::function<void()> heartbeat_;
};

struct SweepProgress {
  std::size_t total = 0;
  std::size_t done = 0;         ///< stored, including runs stored by an earlier process
  std::size_t ran_now = 0;      ///< runs this process carried out
  std::size_t failed = 0;       ///< of ran_now, status other than OK
  std::optional<double> eta_s;  ///< mean duration of the stored runs x runs left
};

/// "5/8 runs stored, 1 not OK, ETA 42 s": the status line for logs and systemd's STATUS=.
std::string progress_text(const SweepProgress& progress);

struct SweepRunnerOptions {
  std::string sweep_name;
  /// Polled between runs: true stops the sweep after the current run.
  std::function<bool()> stop_requested = [] { return false; };
  /// Receives a line per run (a terminal gets an updating line from the CLI instead).
  std::ostream* log = nullptr;
  /// Called after every run with the progress so far (the CLI draws its progress display).
  std::function<void(const SweepProgress&, const PlannedRun&, const proto::RunResult&)> on_run;
  /// False on a node other than 0 of a multi-node run's world (fleet/multi_node_run.h): each run
  /// is carried out (the executor controls and restores the board as in any run) and stored
  /// nowhere, since node 0 records the world's run; the journal still says it started and ended,
  /// and `done` does not count it.
  bool record = true;
};

class SweepRunner {
 public:
  SweepRunner(results::ResultsStore& store, SweepJournal& journal, const SystemdNotifier& notifier);

  /// Runs every run of `plan` not yet stored. Returns the final progress; `stopped` tells
  /// whether stop_requested ended it early.
  SweepProgress run(const SweepPlan& plan, RunExecutor& executor, const SweepRunnerOptions& options,
                    bool* stopped = nullptr);

 private:
  results::ResultsStore& store_;
  SweepJournal& journal_;
  const SystemdNotifier& notifier_;
};

}  // namespace jetchar::sweeps
