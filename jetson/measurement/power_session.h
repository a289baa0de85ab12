// A power session: the onboard sampler running around the measured work, its samples gathered into
// a power trace by a drain thread, and named windows (run, epochs, baseload) whose energy is
// integrated from that trace. GPIO phase markers, when configured, toggle at window boundaries.
// A listener sees every sample as it is drained (the monitor's display and sample log).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "jetson/control/control_interrupt.h"
#include "jetson/energy/baseload.h"
#include "jetson/energy/measurement_windows.h"
#include "jetson/energy/power_trace.h"
#include "jetson/energy/window_energy.h"
#include "jetson/telemetry/telemetry_sampler.h"
#include "sysfs/root.h"

namespace jetchar::jetson::measurement {

class PowerSession {
 public:
  /// Discovers the telemetry sources under `root` and prepares a sampler at `rate_hz`.
  PowerSession(const sysfs::Root& root, double rate_hz);
  ~PowerSession();
  PowerSession(const PowerSession&) = delete;
  PowerSession& operator=(const PowerSession&) = delete;

  /// Called with every sample as it is drained, in order, on the draining thread (the session's
  /// own or a caller's), never two at a time. Set before start().
  using SampleListener = std::function<void(const TelemetrySample&)>;
  void set_sample_listener(SampleListener listener) { listener_ = std::move(listener); }

  void start();
  void stop();
  bool running() const { return draining_.load(); }

  energy::WindowRecorder& windows() { return windows_; }
  /// Measures idle power for `seconds` now (the sampler must be running); a signal that
  /// `interrupt` sees ends the idle window early (the run it is for is stopped anyway).
  energy::Baseload measure_baseload(double seconds, const ControlInterrupt* interrupt = nullptr);
  /// Energy of a closed window, against `baseload` when given. Takes what the sampler has so far.
  energy::WindowEnergy energy(const energy::Window& window, const energy::Baseload* baseload = nullptr);
  /// Mean board power over [begin_ns, end_ns] (the window's total, as epochs use it), for
  /// adaptive stopping's per-minibatch power. `covered` is false while the trace has not yet
  /// reached end_ns (ask again later); `watts` is nullopt when it has but the total is undefined.
  struct MeanPower {
    bool covered = false;
    std::optional<double> watts;
  };
  MeanPower mean_power(std::int64_t begin_ns, std::int64_t end_ns);
  /// True when the trace has at least one power channel (a host without RAPL/INA has none).
  bool has_power() const { return trace_.channel_count() > 0; }
  /// A copy of the power trace gathered so far.
  energy::PowerTrace trace();
  const TelemetrySampler& sampler() const { return *sampler_; }
  SamplerStats stats() const { return sampler_->stats(); }

 private:
  void drain_once();
  /// Drains until the trace reaches `end_ns` (bounded by a few sample periods).
  void drain_until_covered(std::int64_t end_ns);

  std::unique_ptr<TelemetrySampler> sampler_;
  energy::WindowRecorder windows_;
  std::mutex mutex_;  // guards trace_ and the sampler's consumer side
  energy::PowerTrace trace_;
  SampleListener listener_;
  std::atomic<bool> draining_{false};
  std::thread drainer_;
  // Wakes the drainer from its 100 ms wait when stop() ends it, so that a run does not end up to
  // 0.1 s late (a sweep of 81 short runs waited 4 s in all).
  std::mutex wake_mutex_;
  std::condition_variable wake_;
};

}  // namespace jetchar::jetson::measurement
