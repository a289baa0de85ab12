// Every sample of a measurement session in a file, as CSV or as JSON lines: onboard samples (one
// column or key per telemetry field, times in seconds from the session's start) and external meter
// readings (power, voltage, current) interleaved as they are drained. JSONL ends with a summary
// record: the window in CLOCK_MONOTONIC ns (so another process can compare it with its own
// records), the energy per rail and total, and each meter's aligned energy and how it was aligned.
//
// Onboard samples arrive on the session's drain thread and meter readings on the caller's: writes
// are serialised.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>

#include "jetson/measurement/measurement_session.h"
#include "jetson/meters/meter_reading.h"
#include "jetson/telemetry/telemetry_sample.h"

namespace jetchar::jetson::measurement {

class SampleLog {
 public:
  enum class Format { kCsv, kJsonl };

  /// Creates (truncates) `path`. `meters`: how many meters the session has (CSV columns for the
  /// first). `origin` names the option in errors ("--csv"). Throws std::invalid_argument naming
  /// the option and the path when the file cannot be written. `layout` must outlive the log.
  SampleLog(const std::filesystem::path& path, Format format, const TelemetryLayout& layout, std::size_t meters,
            const std::string& origin);

  /// Time zero of every record (CLOCK_MONOTONIC ns).
  void set_origin_ns(std::int64_t t0_ns) { t0_ns_ = t0_ns; }
  void sample(const TelemetrySample& sample);
  void meter(const meters::MeterReading& reading);
  /// JSONL only (CSV has no room for it): the closing summary record. `meters` after stop().
  void summary(const SessionEnergy& energy, const MeterSession& meters);

 private:
  const TelemetryLayout& layout_;
  Format format_;
  bool with_meter_;
  std::int64_t t0_ns_ = 0;
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace jetchar::jetson::measurement
