// What a command that runs one experiment through the executor (`train`, `infer`) sees beyond the
// record a sweep stores: the workload's own result, which holds more than the RunResult (every
// resolved setting of the trainer, the latency of every query, the pretrained checkpoint's load),
// and each minibatch, epoch or server trial as it ends, for a progress bar or progress lines. A
// sweep sets none.
#pragma once

#include <optional>
#include <string>

#include "experiments/checkpoints/hf_checkpoint.h"
#include "experiments/inference/inference_runner.h"
#include "experiments/inference/query_energy.h"
#include "experiments/training/training_runner.h"

namespace jetchar::experiments {

/// What a run was given besides its settings.
struct RunInputs {
  std::string dataset;                       ///< the data set's name; empty for synthetic queries
  std::optional<PretrainedLoad> pretrained;  ///< how workload.pretrained's checkpoint loaded
};

class WorkloadObserver {
 public:
  virtual ~WorkloadObserver() = default;
  /// After every training minibatch, from the training thread.
  virtual void minibatch_done(const TrainingProgress&) {}
  /// When a training epoch's result is whole (loss read, evaluated), its times the board's (a
  /// dilated run's divided by its k, as in trained()), from the training thread.
  virtual void epoch_done(const EpochResult&) {}
  /// When a server scenario's trial ends, its rate and p99 the board's (as in inferred()).
  virtual void server_trial(const ServerTrial&) {}
  /// When a training run's loop has ended (also when a signal or a failure ended it).
  virtual void trained(const TrainingResult&, const RunInputs&) {}
  /// When an inference run's queries have ended; `energy` is absent where the board measures no power.
  virtual void inferred(const InferenceResult&, const std::optional<QueryEnergy>& /*energy*/, const RunInputs&) {}
};

}  // namespace jetchar::experiments
