// The runs a command asks for itself (`train`, `infer`), on the route a sweep's runs take: the
// command's experiments become one plan (sweeps::plan_runs), checked against the board as a sweep
// checks its plan before it starts (each data set opened once), and each run is carried out by the
// CharacterizationExecutor, so the same settings give the same record (resolved settings,
// context, energy) however they were asked for.
#pragma once

#include <string>
#include <vector>

#include "experiments/characterization_executor.h"
#include "experiments/workload_observer.h"
#include "jetson/discovery/board_handle.h"
#include "proto/experiment_spec.pb.h"
#include "proto/run_result.pb.h"
#include "sweeps/plan.h"

namespace jetchar::experiments {

class DirectRuns {
 public:
  /// `board` and `observer` must outlive this; `source` names the command in spec errors
  /// ("jetchar train"). SIGINT and SIGTERM end a run at its next minibatch or query while this
  /// lives (the run is INTERRUPTED with what it measured).
  DirectRuns(jetson::BoardHandle& board, std::string source, WorkloadObserver* observer);

  /// The plan of `specs`, validated (a SpecError, or one std::invalid_argument listing every
  /// problem the board's check found, each naming its spec field) before anything runs.
  sweeps::SweepPlan plan(const std::vector<proto::ExperimentSpec>& specs);
  /// Carries out one run of plan().
  proto::RunResult run(const sweeps::PlannedRun& run);

 private:
  jetson::BoardHandle& board_;
  std::string source_;
  CharacterizationExecutor executor_;
};

}  // namespace jetchar::experiments
