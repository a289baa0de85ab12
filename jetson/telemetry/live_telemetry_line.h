// The live view of a running sampler: the newest sample as one tegrastats-like line
// (telemetry_line.h), refreshed in place on a terminal, or a line per second with its time since
// the start otherwise, so that a log of the output grows at a readable pace whatever the rate.
// Samples arrive on the sampler's draining thread; show() runs on the caller's and returns what
// to write to stdout, so the caller decides where the text goes.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "jetson/telemetry/telemetry_line.h"
#include "jetson/telemetry/telemetry_sample.h"

namespace jetchar::jetson {

class LiveTelemetryLine {
 public:
  /// `layout` must outlive this. `tty`: refresh one line in place ("\r", erase to end of line);
  /// else print a line per second of sample time, each prefixed with seconds since `t0_ns`.
  /// `quiet`: show nothing (the samples go elsewhere, or a baseload is being measured).
  LiveTelemetryLine(const TelemetryLayout& layout, bool tty, bool quiet, std::int64_t t0_ns)
      : formatter_(layout), tty_(tty), quiet_(quiet), t0_ns_(t0_ns), next_line_ns_(t0_ns + 1'000'000'000) {}

  /// The newest sample (thread-safe).
  void sample(const TelemetrySample& sample);
  /// The external meter's newest power; a reading without one keeps the last.
  void meter_power(std::optional<double> power_mw) {
    if (power_mw) meter_mw_ = power_mw;
  }
  /// What to write for the newest sample now: nothing when it was shown already or (off a terminal)
  /// its second has not come; `final` ends the refreshing line and writes the last sample regardless.
  std::string show(bool final);

 private:
  TelemetryLineFormatter formatter_;
  bool tty_, quiet_;
  std::int64_t t0_ns_, next_line_ns_;
  std::int64_t shown_ns_ = -1;
  std::mutex mutex_;
  std::optional<TelemetrySample> latest_;  ///< guarded by mutex_
  std::optional<double> meter_mw_;
};

}  // namespace jetchar::jetson
