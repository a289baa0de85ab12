// The real RunExecutor: carries out one planned run on a board, as the sweep's main job.
//   1. power mode: when the run's mode differs from the current one, plan it against the board
//      (custom cores/frequencies/DVFS/fan, or an nvpmodel preset), apply it through the control
//      session (journaled, read back, settled) and measure the baseload once for that mode;
//   2. the workload inside a power session: the sampler runs, each epoch is a measurement window
//      (cache policy applied before it), the training or inference runner does the timing;
//   3. the record: context (board, mode, clocks read back, INA3221 settings), requested and
//      resolved settings, per-epoch stall/compute/E2E, energy per rail and in total, incremental
//      energy, J per sample, residency and I/O, memory peaks, status;
//   4. cool-down (seconds, and/or until the thermal zones are below a temperature).
// Run-level failures become a status; failure to control the board is thrown (the sweep stops
// and the board is restored by the control session).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "experiments/workload_observer.h"
#include "jetson/control/control_session.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/discovery/board_info.h"
#include "jetson/energy/baseload.h"
#include "proto/run_result.pb.h"
#include "sweeps/runner.h"

namespace jetchar::experiments {

class CharacterizationExecutor : public sweeps::RunExecutor {
 public:
  /// `board` must outlive the executor. The control session (and its change journal in
  /// `board.state_dir`) is opened on the first run that changes the board.
  CharacterizationExecutor(jetson::BoardHandle& board, std::ostream* log = nullptr);
  ~CharacterizationExecutor() override;

  proto::RunResult execute(const sweeps::PlannedRun& run) override;
  std::string describe() const override { return board_.label; }
  std::vector<results::StoredPowerSample> take_power_samples() override { return std::move(power_samples_); }

  /// Restores the board now (also done on destruction).
  void restore();
  /// Store the board's serial number (and a serial-less host's name) as SHA-256 hashes
  /// (jetson/discovery/device_identity.h); off by default.
  void set_redact_serial(bool redact) { redact_serial_ = redact; }
  /// Told of each run's workload result and minibatches (`train`, `infer`); must outlive the
  /// runs it sees. None by default.
  void set_observer(WorkloadObserver* observer) { observer_ = observer; }

 private:
  void enter_mode(const sweeps::PlannedRun& run);
  void fill_context(proto::RunResult& result) const;
  struct NodeWorld;
  void run_training(const sweeps::PlannedRun& run, proto::RunResult& result, NodeWorld& world);
  void exchange_node_reports(NodeWorld& world, const std::vector<std::string>& mode_changes,
                             proto::RunResult& result) const;
  void run_inference(const sweeps::PlannedRun& run, proto::RunResult& result);
  void cool_down(const proto::CooldownSpec& cooldown) const;

  jetson::BoardHandle& board_;
  std::ostream* log_;
  jetson::BoardInfo info_;
  std::unique_ptr<jetson::ControlSession> control_;
  std::optional<std::string> current_mode_key_;
  std::string mode_name_ = "as found";
  std::optional<jetson::energy::Baseload> baseload_;
  std::string mode_error_;  ///< why the current mode could not be applied (runs in it are INVALID)
  std::vector<results::StoredPowerSample> power_samples_;  ///< of the last run, when its spec asked for them
  bool redact_serial_ = false;
  WorkloadObserver* observer_ = nullptr;
  /// LibTorch's intra-op threads when the executor was made: a run that names no
  /// workload.threads runs with these, whatever the run before it set.
  int default_threads_;
  /// SIGINT/SIGTERM, held for the executor's life: the training and inference loops end at the
  /// next minibatch or query once one arrives, and the run is recorded as INTERRUPTED.
  jetson::ControlInterrupt interrupt_;
};

}  // namespace jetchar::experiments
