// A simulated board's times following its power mode: paces each training minibatch's fetch stall
// and compute, or each inference query, to the time the board's time model
// (jetson/simulated/simulated_time_model.h) gives for the work of the data set and the model
// definition in the mode the board is in. The host loads and computes for real (samples, loss,
// gradients, accuracy and outputs are real); when it finishes before the modelled time the runner
// waits until then.
//
// A host slower than the modelled board dilates time: the first minibatch (training) or the last
// warm-up query (inference) calibrates k = kDilationMargin × host time / modelled time, and from
// then on every minibatch is paced to k × its modelled time, so the whole run is the board's in
// slow motion; the run's figures are the measured ones divided by k (experiments/dilated_time.h).
// A minibatch that overruns even k × the model (the host's scheduling noise, another process)
// ends at k × its modelled time all the same: the runner leaves the host's delay out of the
// epoch, and the run says how often it happened; so does a fetch the host's loader delivers later
// than k × the modelled stall. A paced epoch's E2E is its minibatches' stalls and computes: the
// host's bookkeeping between them is its delay too. The run's first minibatch is fetched before k
// is known: its stall is the host loader's (divided by k with the rest). While the pacer lives,
// the simulated rails' power model takes its CPU utilisation and GPU load from the modelled busy
// shares over a minibatch's stall and compute (the GPU idles while the loop waits for data; a
// loader is busy on a core meanwhile), so energy follows the same mode as time. Every paced run says so
// (paced_time(), which the run records as context.time_model and ModelledTime).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "jetson/discovery/board_hooks.h"
#include "jetson/discovery/board_info.h"
#include "jetson/simulated/simulated_board.h"
#include "jetson/simulated/simulated_time_model.h"

namespace jetchar::jetson {

class ModelledTimePacer : public MinibatchPacer {
 public:
  /// k is this much above the calibrating minibatch's host/modelled ratio: room for the host's
  /// minibatch-to-minibatch noise. A minibatch that overruns k × the model still reports the
  /// board's time, so a larger margin buys fewer overruns with a slower run (the whole suite's
  /// simulated sweeps take about margin × this host's time).
  static constexpr double kDilationMargin = 1.25;

  /// A pacer for training minibatches of `batch` samples of `work` on `board` in the mode `info`
  /// reads back; nullptr, with `why_not` set, when the board's family has no throughput figures or
  /// a clock of the mode is unknown (the run's times are then the host's, and the run says so).
  static std::unique_ptr<ModelledTimePacer> for_training(SimulatedBoard& board, const BoardInfo& info,
                                                         const ModelWork& work, const FetchWork& fetch,
                                                         std::int64_t batch, std::string& why_not);
  /// The same for the queries of an inference run whose first `warmup` queries are untimed.
  static std::unique_ptr<ModelledTimePacer> for_inference(SimulatedBoard& board, const BoardInfo& info,
                                                          const ModelWork& work, std::int64_t batch,
                                                          std::int64_t warmup, std::string& why_not);

  /// `calibration`: the minibatches the host runs unpaced before the last of them sets k (1: the
  /// first minibatch sets k and is paced with it). `fetch`: training minibatches' fetch, whose
  /// stall pace_fetch() paces; nullopt: the pacer paces inference queries, which are not fetched.
  ModelledTimePacer(SimulatedBoard& board, const SocThroughput& soc, const ModeClocks& clocks, const ModelWork& work,
                    const std::optional<FetchWork>& fetch, std::int64_t batch, std::int64_t calibration);
  ~ModelledTimePacer() override;
  ModelledTimePacer(const ModelledTimePacer&) = delete;
  ModelledTimePacer& operator=(const ModelledTimePacer&) = delete;

  /// Waits until `compute_start` + k × the modelled compute of a minibatch of `samples` and
  /// returns that time, the board's end: at once when the host overran it, else after sleeping to
  /// it (either way now may be later: the runner counts the difference as the host's delay).
  Clock::time_point pace(Clock::time_point compute_start, std::int64_t samples) override;
  /// Waits until `fetch_start` + k × the modelled fetch stall of minibatch `index` of an epoch
  /// and returns that time, the board's end of the stall, as pace() does; now, without waiting,
  /// before k is known (the run's first minibatch) and for a pacer without fetch work.
  Clock::time_point pace_fetch(Clock::time_point fetch_start, std::int64_t index, std::int64_t samples) override;

  /// The modelled time of a full minibatch, seconds.
  const MinibatchTime& minibatch_time() const { return full_; }
  /// The modelled fetch of a full training minibatch after an epoch's first (zero for inference).
  const FetchTime& fetch_time() const { return full_fetch_; }
  std::uint64_t paced() const { return paced_; }
  std::uint64_t host_slower() const { return host_slower_; }
  /// k (1 until calibrated, and where the host keeps up).
  double dilation() const { return dilation_; }
  const ModeClocks& clocks() const { return clocks_; }

  PacedTime paced_time() const override;
  /// Takes the rails' activity to an idle board's (no CPU or GPU busy share) or back to the busy
  /// shares (SimulatedBoard::set_idle); the sensors' background refresh takes it up, so each
  /// refresh sees the state of its moment and the energy follows the share of time busy.
  void set_idle(bool idle) override;

 private:
  double modelled_s(std::int64_t samples) const;
  /// k × `modelled_s`, rounded up to the clock's tick.
  Clock::duration dilated(double modelled_s) const;
  /// Sleeps until `deadline`; true, without sleeping, when the host is already past it.
  static bool wait_until(Clock::time_point deadline);

  SimulatedBoard& board_;
  SocThroughput soc_;
  ModeClocks clocks_;
  ModelWork work_;
  std::optional<FetchWork> fetch_;
  std::int64_t batch_ = 0;
  MinibatchTime full_;
  FetchTime full_fetch_;
  std::int64_t calibration_left_ = 1;
  bool calibrated_ = false;
  double dilation_ = 1;
  std::uint64_t paced_ = 0;
  std::uint64_t host_slower_ = 0;  // minibatches whose fetch or compute the host overran
  bool fetch_overran_ = false;     // the current minibatch's
};

}  // namespace jetchar::jetson
