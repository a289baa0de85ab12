// The onboard telemetry sampler: a thread that wakes on absolute CLOCK_MONOTONIC deadlines
// (clock_nanosleep TIMER_ABSTIME, timer slack 1 ns, never the wall clock), re-reads files opened
// once with pread(fd, buf, n, 0), parses without allocating, and stores samples in a preallocated
// single-producer/single-consumer ring. Rates from 1 Hz to 1 kHz. It measures its own cost: CPU
// time of its thread per sample (CLOCK_THREAD_CPUTIME_ID) and in total.
//
// Cost per sample is dominated by syscalls (one pread per file, ~1-2 us each on a VM), so only
// the power rails and energy counters are read every sample. Everything else is read at a
// sub-rate (SamplerOptions::sub_rate_period_ns, 10 ms by default) and carried over in between,
// flagged kCarried with its age: /proc/stat advances in USER_HZ = 100 ticks/s, thermal zones and
// meminfo are published slowly, and CPU/GPU/EMC clocks and GPU/EMC load change at DVFS governor
// rates (several ms or more).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "jetson/telemetry/telemetry_sample.h"
#include "jetson/telemetry/telemetry_sources.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct SamplerOptions {
  double rate_hz = 10.0;
  /// Samples buffered until drained (the ring); when full, new samples are dropped and counted.
  std::size_t ring_capacity = 4096;
  /// SCHED_FIFO priority for the sampler thread (1..99); 0 keeps the normal scheduler. Needs
  /// CAP_SYS_NICE; when refused the sampler runs normally and says so in notes().
  int realtime_priority = 0;
  /// How often the sub-rate fields (everything but rails and energy counters) are read; at or
  /// below the sampling period they are read every sample.
  std::int64_t sub_rate_period_ns = 10'000'000;
};

struct SamplerStats {
  std::uint64_t samples = 0;
  std::uint64_t dropped = 0;           ///< ring full
  std::uint64_t missed_deadlines = 0;  ///< deadlines skipped because a sample overran
  std::int64_t read_wall_ns = 0;       ///< Σ wall time spent reading
  std::int64_t thread_cpu_ns = 0;      ///< the thread's whole CPU time (reads + wake-ups)
  std::int64_t elapsed_ns = 0;         ///< from start to the last sample
  double cpu_ns_per_sample() const {
    return samples > 0 ? static_cast<double>(thread_cpu_ns) / static_cast<double>(samples) : 0.0;
  }
  double cpu_fraction() const {  ///< of one core
    return elapsed_ns > 0 ? static_cast<double>(thread_cpu_ns) / static_cast<double>(elapsed_ns) : 0.0;
  }
};

class TelemetrySampler {
 public:
  /// Opens every source once; a file that cannot be opened makes its field absent (with a note),
  /// not an error. Throws std::invalid_argument for a rate outside 1..1000 Hz.
  TelemetrySampler(const sysfs::Root& root, const TelemetrySources& sources, SamplerOptions options = {});
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  const TelemetryLayout& layout() const { return layout_; }
  /// INA3221 settings as read at construction, and why fields are absent.
  const std::vector<PowerMonitorSettings>& power_monitor_settings() const { return power_monitors_; }
  const std::vector<std::string>& notes() const { return notes_; }
  double rate_hz() const { return options_.rate_hz; }

  void start();
  /// Stops and joins; returns within ~50 ms whatever the rate.
  void stop();
  bool running() const { return running_.load(); }

  /// Copies the samples taken since the last drain into `out` (appending); returns how many.
  std::size_t drain(std::vector<TelemetrySample>& out);
  /// Takes one sample on the caller's thread (only while the thread is not running).
  TelemetrySample sample_now();
  SamplerStats stats() const;

 private:
  struct Source;
  void read_into(TelemetrySample& sample, std::int64_t t_ns);
  void run();

  SamplerOptions options_;
  TelemetryLayout layout_;
  std::vector<PowerMonitorSettings> power_monitors_;
  std::vector<std::string> notes_;
  std::unique_ptr<Source> source_;

  std::vector<TelemetrySample> ring_;
  std::atomic<std::uint64_t> head_{0};  // written by the sampler
  std::atomic<std::uint64_t> tail_{0};  // written by the consumer
  std::atomic<bool> running_{false};
  std::thread thread_;

  std::atomic<std::uint64_t> samples_{0}, dropped_{0}, missed_{0};
  std::atomic<std::int64_t> read_wall_ns_{0}, thread_cpu_ns_{0}, elapsed_ns_{0};
};

}  // namespace jetchar::jetson
