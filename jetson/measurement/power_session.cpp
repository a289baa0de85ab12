#include "jetson/measurement/power_session.h"

#include <algorithm>
#include <chrono>

#include "jetson/telemetry/telemetry_discovery.h"

namespace jetchar::jetson::measurement {

PowerSession::PowerSession(const sysfs::Root& root, double rate_hz) {
  SamplerOptions options;
  options.rate_hz = rate_hz;
  // Room for two seconds of samples between drains at any rate.
  options.ring_capacity = std::max<std::size_t>(4096, static_cast<std::size_t>(rate_hz * 2));
  sampler_ = std::make_unique<TelemetrySampler>(root, discover_telemetry_sources(root), options);
  trace_ = energy::PowerTrace(sampler_->layout().power_channels());
}

PowerSession::~PowerSession() { stop(); }

void PowerSession::start() {
  if (draining_.exchange(true)) return;
  sampler_->start();
  // Windows opened right after start() must be covered from their first instant: wait for the
  // first sample (at most a second) so that epoch 0 does not begin before the trace does.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (trace_.channel_count() > 0 && std::chrono::steady_clock::now() < give_up) {
    drain_once();
    {
      std::lock_guard lock(mutex_);
      if (!trace_.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  drainer_ = std::thread([this] {
    while (draining_.load()) {
      {
        std::unique_lock lock(wake_mutex_);
        wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return !draining_.load(); });
      }
      drain_once();
    }
  });
}

void PowerSession::stop() {
  if (!draining_.load()) return;
  // Windows are usually closed just before stop(): sample on until the trace reaches past now, or
  // the last epoch and the run would end after the last sample and have no energy.
  drain_until_covered(energy::WindowRecorder::now_ns());
  {
    // Under the drainer's lock: the drainer either sees draining_ false before it waits or is
    // woken by the notification.
    std::lock_guard lock(wake_mutex_);
    if (!draining_.exchange(false)) return;
  }
  wake_.notify_all();
  drainer_.join();
  sampler_->stop();
  drain_once();
}

void PowerSession::drain_once() {
  // One consumer at a time: the sampler's ring is single-producer/single-consumer.
  std::lock_guard lock(mutex_);
  std::vector<TelemetrySample> fresh;
  sampler_->drain(fresh);
  for (const auto& sample : fresh) {
    if (!trace_.empty() && sample.time_ns <= trace_.times_ns().back()) continue;
    append_power(sampler_->layout(), sample, trace_);
    if (listener_) listener_(sample);
  }
}

void PowerSession::drain_until_covered(std::int64_t end_ns) {
  // A window that closed a moment ago ends after the newest sample: the trace must reach past its
  // end before the edge can be interpolated (else the last epoch's energy comes out absent). Wait
  // a few sample periods at most; a stalled sampler leaves the window uncovered, which is reported.
  const double period_s = 1.0 / sampler_->rate_hz();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(0.05, 5 * period_s));
  for (;;) {
    drain_once();
    {
      std::lock_guard lock(mutex_);
      if (trace_.channel_count() == 0 || (!trace_.empty() && trace_.times_ns().back() >= end_ns)) return;
    }
    if (!draining_.load() || std::chrono::steady_clock::now() >= give_up) return;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

energy::Baseload PowerSession::measure_baseload(double seconds, const ControlInterrupt* interrupt) {
  const std::int64_t begin = energy::WindowRecorder::now_ns();
  const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
  if (interrupt != nullptr) {
    interrupt->wait(idle);  // a signal ends the idle window early
  } else {
    std::this_thread::sleep_for(idle);
  }
  const std::int64_t end = energy::WindowRecorder::now_ns();
  drain_until_covered(end);
  std::lock_guard lock(mutex_);
  return energy::measure_baseload(trace_, begin, end);
}

energy::WindowEnergy PowerSession::energy(const energy::Window& window, const energy::Baseload* baseload) {
  if (window.end_ns) {
    drain_until_covered(*window.end_ns);
  } else {
    drain_once();
  }
  std::lock_guard lock(mutex_);
  energy::WindowEnergyOptions options;
  options.baseload = baseload;
  return energy::window_energy(trace_, window, options);
}

PowerSession::MeanPower PowerSession::mean_power(std::int64_t begin_ns, std::int64_t end_ns) {
  drain_once();
  std::lock_guard lock(mutex_);
  MeanPower mean;
  if (trace_.empty() || trace_.times_ns().back() < end_ns) return mean;
  mean.covered = true;
  if (end_ns <= begin_ns) return mean;
  const auto window = energy::window_energy(trace_, "minibatch", begin_ns, end_ns);
  // mJ over ms is W.
  if (window.total_energy_mj) mean.watts = *window.total_energy_mj / (static_cast<double>(end_ns - begin_ns) / 1e6);
  return mean;
}

energy::PowerTrace PowerSession::trace() {
  drain_once();
  std::lock_guard lock(mutex_);
  return trace_;
}

}  // namespace jetchar::jetson::measurement
