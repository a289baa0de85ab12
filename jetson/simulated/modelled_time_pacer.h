// A simulated board's epoch time following its power mode: paces each training minibatch's
// compute to the time the board's time model (jetson/simulated/simulated_time_model.h) gives for
// the work of the model definition in the mode the board is in. The host computes the minibatch
// for real (loss, gradients and accuracy are real); when it finishes before the modelled time the
// runner waits until then, when it is slower its own time counts and the run says how often. The
// fetch stall stays what the loader really made the loop wait. While the pacer lives, the
// simulated rails' power model takes its CPU utilisation and GPU load from the modelled busy
// shares, so energy follows the same mode as time. Every paced run says so (paced_time(), which
// the run records as context.time_model and ModelledTime).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "jetson/discovery/board_hooks.h"
#include "jetson/discovery/board_info.h"
#include "jetson/simulated/simulated_board.h"
#include "jetson/simulated/simulated_time_model.h"

namespace jetchar::jetson {

class ModelledTimePacer : public MinibatchPacer {
 public:
  /// A pacer for training minibatches of `batch` samples of `work` on `board` in the mode `info`
  /// reads back; nullptr, with `why_not` set, when the board's family has no throughput figures or
  /// a clock of the mode is unknown (the run's times are then the host's, and the run says so).
  static std::unique_ptr<ModelledTimePacer> for_training(SimulatedBoard& board, const BoardInfo& info,
                                                         const ModelWork& work, std::int64_t batch,
                                                         std::string& why_not);

  ModelledTimePacer(SimulatedBoard& board, const SocThroughput& soc, const ModeClocks& clocks, const ModelWork& work,
                    std::int64_t batch);
  ~ModelledTimePacer() override;
  ModelledTimePacer(const ModelledTimePacer&) = delete;
  ModelledTimePacer& operator=(const ModelledTimePacer&) = delete;

  /// Waits until `compute_start` + the modelled compute of a minibatch of `samples`; returns when
  /// compute ended (now).
  Clock::time_point pace(Clock::time_point compute_start, std::int64_t samples) override;

  /// The modelled time of a full minibatch, seconds.
  const MinibatchTime& minibatch_time() const { return full_; }
  std::uint64_t paced() const { return paced_; }
  std::uint64_t host_slower() const { return host_slower_; }
  const ModeClocks& clocks() const { return clocks_; }

  PacedTime paced_time() const override;

 private:
  SimulatedBoard& board_;
  SocThroughput soc_;
  ModeClocks clocks_;
  ModelWork work_;
  std::int64_t batch_ = 0;
  MinibatchTime full_;
  std::uint64_t paced_ = 0;
  std::uint64_t host_slower_ = 0;
};

}  // namespace jetchar::jetson
