// What the board a command works on does at the moments where a real board's kernel and hardware
// act by themselves and a simulated board (jetson/simulated/simulated_board_hooks.h) must act for
// them: after a control write, while a run or a monitor measures, while a training minibatch
// computes. Code above jetson/ calls these hooks and never asks which kind of board it has; a real
// board's hooks (this class as it is) do nothing and answer for real hardware.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "jetson/discovery/board_info.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

/// The model definition's figures per sample and in total, as counted by experiments/models: the
/// work a training run asks of the board, which a board's time model turns into a minibatch's time.
struct ModelWork {
  double forward_macs_per_sample = 0;
  double activations_per_sample = 0;  ///< output elements of the counted (conv/linear) layers
  double parameters = 0;              ///< trainable scalars
  double parameter_tensors = 0;
  double layers = 0;  ///< counted conv/linear layers
};

/// What fetching a training run's samples asks of the board, as counted by experiments/ from the
/// data set and the loader's settings: per sample, and how many workers fetch.
struct FetchWork {
  double input_values = 0;      ///< values of a sample's model input (with a token task's mask and segment ids)
  double input_bytes = 0;       ///< those values as the model takes them (4 B a float, 8 B a token id)
  double stored_bytes = 0;      ///< read from the data set's files per sample
  bool decodes_images = false;  ///< each sample a compressed image (JPEG, PNG) decoded and resized
  int workers = 0;              ///< the loader's worker processes (0: the training loop fetches)
};

/// What a pacer did over one run, for the run's record.
struct PacedTime {
  std::string time_model;          ///< where the modelled times come from
  double minibatch_compute_s = 0;  ///< the modelled compute of a full minibatch
  double minibatch_stall_s = 0;    ///< the modelled fetch stall of a full minibatch within an epoch
  double cpu_busy = 0;             ///< modelled busy shares of a minibatch, for the power model
  double gpu_busy = 0;
  std::uint64_t paced = 0;        ///< minibatches that waited for their modelled end
  std::uint64_t host_slower = 0;  ///< minibatches whose host fetch or compute overran the model
  /// k >= 1: the host computes slower than the modelled board, so every minibatch was paced to k
  /// times its modelled time; the run's time figures are the measured ones divided by k, its
  /// rates multiplied by k (experiments/dilated_time.h). 1 when the host keeps up.
  double dilation = 1;
};

/// Paces one run's minibatches (training) or queries (inference) to the time the board would take.
class MinibatchPacer {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~MinibatchPacer() = default;
  /// Waits until `compute_start` + the board's compute of a minibatch of `samples`; returns when
  /// the board's compute ended: now, or earlier when the host overran it.
  virtual Clock::time_point pace(Clock::time_point compute_start, std::int64_t samples) = 0;
  /// Called once the loader delivered minibatch `index` of an epoch (its `samples` on the device):
  /// waits until `fetch_start` + the board's fetch stall of it; returns when the board's stall
  /// ended: now, or earlier when the host's loader overran it. A pacer that paces compute only
  /// leaves the stall to the host's loader.
  virtual Clock::time_point pace_fetch(Clock::time_point /*fetch_start*/, std::int64_t /*index*/,
                                       std::int64_t /*samples*/) {
    return Clock::now();
  }
  virtual PacedTime paced_time() const = 0;
  /// A server between batches, waiting for queries: the board idles (true) until its next batch
  /// (false). Paced runs are busy otherwise; a board whose power is measured needs no telling.
  virtual void set_idle(bool /*idle*/) {}
};

class BoardHooks {
 public:
  virtual ~BoardHooks() = default;

  /// After jetchar wrote a control: what the kernel derives from it (clocks, rails).
  virtual void after_write() {}
  /// The sensors read anew, once (a real board's are live).
  virtual void refresh_sensors() {}
  /// While a run or a monitor measures, the sensors are refreshed every `period` until
  /// stop_refreshing(); both are safe to call on a board that is not refreshing.
  virtual void start_refreshing(std::chrono::milliseconds /*period*/) {}
  virtual void stop_refreshing() {}

  /// Whether the onboard power figures are a model's rather than rails' (results record it, and
  /// a measurement session aligns meters against measured power only).
  virtual bool power_modelled() const { return false; }
  /// Whether a GPIO phase marker may run without a GPIO chip (its edges recorded, not driven).
  virtual bool marks_without_gpio() const { return false; }
  /// Whether NVIDIA's nvpmodel program is the one to set a preset (where it is installed).
  virtual bool runs_nvpmodel_program() const { return true; }
  /// Whether the board under `root` is the machine jetchar runs on (NVML's knobs act on its GPUs).
  virtual bool is_this_machine(const sysfs::Root& root) const { return root.is_host_root(); }
  /// What the board's model says of its state after a change (one line), empty when it has none.
  virtual std::string state_text() const { return {}; }

  /// A pacer for the minibatches of one training run of `batch` samples of `work`, fetched as
  /// `fetch` says, in the mode `info` reads back; nullptr when minibatches take the host's time. A
  /// board that paces but cannot pace this run returns nullptr and says why in `why_not`.
  virtual std::unique_ptr<MinibatchPacer> pace_training(const BoardInfo& /*info*/, const ModelWork& /*work*/,
                                                        const FetchWork& /*fetch*/, std::int64_t /*batch*/,
                                                        std::string& /*why_not*/) {
    return nullptr;
  }
  /// A pacer for the queries of one inference run of `batch` samples (the first `warmup` of them
  /// untimed); nullptr when queries take the host's time, with `why_not` set by a board that
  /// paces but cannot pace this run.
  virtual std::unique_ptr<MinibatchPacer> pace_inference(const BoardInfo& /*info*/, const ModelWork& /*work*/,
                                                         std::int64_t /*batch*/, std::int64_t /*warmup*/,
                                                         std::string& /*why_not*/) {
    return nullptr;
  }
  /// Around the idle-power (baseload) window: a board whose power is modelled models itself idle
  /// while `idle`, not whatever else its host runs, so that no run it then paces can read below
  /// its own baseline. A real board is idle when nothing runs, so does nothing.
  virtual void hold_idle(bool /*idle*/) {}
};

/// hold_idle(true) while it lives: the baseload window of a run (experiments/).
class IdleHold {
 public:
  explicit IdleHold(BoardHooks& hooks) : hooks_(hooks) { hooks_.hold_idle(true); }
  ~IdleHold() { hooks_.hold_idle(false); }
  IdleHold(const IdleHold&) = delete;
  IdleHold& operator=(const IdleHold&) = delete;

 private:
  BoardHooks& hooks_;
};

/// While it lives (or until stop()), the board's sensors are refreshed every `period`
/// (BoardHooks::start_refreshing): a measurement holds one, so that a board whose readings are
/// modelled follows what the run does. Stops also when the run throws.
class SensorRefresh {
 public:
  SensorRefresh(BoardHooks& hooks, std::chrono::milliseconds period) : hooks_(&hooks) {
    hooks.start_refreshing(period);
  }
  ~SensorRefresh() { stop(); }
  SensorRefresh(const SensorRefresh&) = delete;
  SensorRefresh& operator=(const SensorRefresh&) = delete;
  void stop() {
    if (hooks_ != nullptr) hooks_->stop_refreshing();
    hooks_ = nullptr;
  }

 private:
  BoardHooks* hooks_;
};

}  // namespace jetchar::jetson
