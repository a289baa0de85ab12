// A measurement session run for one span of the onboard clock, the way `jetchar monitor` runs it.
// The span starts where sampling starts, so a duration is the time sampled (not the time the
// meters took to send their first reports, which MeasurementSession::start_meters waits for).
// Every onboard sample inside the span and every reading of the first meter go to the caller as
// they arrive (for a live view and a sample log). The session samples on while it stops (it
// drains until its trace covers the stop): those samples come after the span and are not handed on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "jetson/measurement/measurement_session.h"
#include "jetson/meters/meter_reading.h"
#include "jetson/telemetry/telemetry_sample.h"

namespace jetchar::jetson::measurement {

class MonitoredSpan {
 public:
  /// Called on the session's draining thread, in order, never two at a time.
  using SampleHandler = std::function<void(const TelemetrySample&)>;
  /// Called on the thread that calls pump(), end() or stop().
  using ReadingHandler = std::function<void(const meters::MeterReading&)>;

  /// Installs the session's sample listener: `session` must not be started yet and must outlive this.
  MonitoredSpan(MeasurementSession& session, SampleHandler on_sample, ReadingHandler on_reading);
  /// Stops the session's sampler: its listener calls into this span.
  ~MonitoredSpan();
  MonitoredSpan(const MonitoredSpan&) = delete;
  MonitoredSpan& operator=(const MonitoredSpan&) = delete;

  /// Starts the session (its meters first, unless started already); the span ends `duration_s`
  /// seconds from here, or with end() when `duration_s` is 0.
  void start(double duration_s);
  /// True until the span's time has run out (always true for an open-ended span).
  bool running() const;
  /// The wait before the next pump(): `period_ns`, or less when the span ends sooner; rounded up
  /// to whole milliseconds (0 once the span has run out).
  std::chrono::milliseconds next_wait(std::int64_t period_ns) const;
  /// Hands on the first meter's readings received since the last call.
  void pump();
  /// Ends the span now, or at its end if that has passed: later samples are not handed on. Pumps.
  void end();
  /// Stops the session (the sampler, then the meters, aligned) and hands on the readings the
  /// meters' stop collected.
  void stop();

  std::int64_t begin_ns() const { return begin_ns_; }
  /// INT64_MAX until end() for an open-ended span.
  std::int64_t end_ns() const { return end_ns_; }

 private:
  MeasurementSession& session_;
  ReadingHandler on_reading_;
  std::int64_t begin_ns_ = 0;
  std::int64_t end_ns_ = INT64_MAX;
  std::atomic<std::int64_t> last_sample_ns_{INT64_MAX};  ///< samples after this are not the span's
  std::vector<std::vector<meters::MeterReading>> readings_;
};

}  // namespace jetchar::jetson::measurement
