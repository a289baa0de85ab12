// The measurement `jetchar monitor` makes: a measurement session (measurement_session.h) on one
// board, run for one span (monitored_span.h) that feeds the live line (live_telemetry_line.h) and
// the optional sample log (sample_log.h), then summed up (session_summary.h): the energy over the
// sampled span, or, when a baseload is asked for, idle power per source. What the monitor decides
// lives here (its default rates, the display pace, who stays quiet, what a too-short baseload is);
// the command parses its options into MonitorSettings and prints the texts this returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "jetson/control/control_interrupt.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/measurement/measurement_session.h"
#include "jetson/measurement/monitored_span.h"
#include "jetson/measurement/sample_log.h"
#include "jetson/telemetry/live_telemetry_line.h"

namespace jetchar::jetson::measurement {

struct MonitorSettings {
  /// Samples per second; 0: 2 on a terminal (a line a person reads), 10 otherwise.
  double rate_hz = 0;
  /// Stdout is a terminal: the live line refreshes in place instead of a line per second.
  bool tty = false;
  /// The external meter, if any. It must open, or the measurement is not made.
  std::optional<MeterSpec> meter;
  /// The file every sample and meter reading goes to, if any; `origin` names the option in errors.
  struct Log {
    std::filesystem::path path;
    SampleLog::Format format = SampleLog::Format::kCsv;
    std::string origin;
  };
  std::optional<Log> log;
  /// The span in seconds; 0: until a signal.
  double duration_s = 0;
  /// Above 0: measure idle power over this many seconds instead of the duration.
  double baseload_s = 0;
};

/// What the monitor reports at the end: `results` is what was asked for (idle power per source,
/// for stdout), `notes` what it measured besides (energy, the meter's counts, the sampler's cost,
/// for stderr). Each is empty or ends with a newline.
struct MonitorSummary {
  std::string results;
  std::string notes;
};

class MonitorMeasurement {
 public:
  /// Opens the session on `board` (which must outlive this; a simulated board's rails follow its
  /// power model, refreshed in the background until the span stops), starts the meters, then creates
  /// the sample log: a meter that cannot be opened throws before anything is written. Throws what
  /// MeasurementSession and SampleLog throw.
  MonitorMeasurement(BoardHandle& board, MonitorSettings settings);
  ~MonitorMeasurement();
  MonitorMeasurement(const MonitorMeasurement&) = delete;
  MonitorMeasurement& operator=(const MonitorMeasurement&) = delete;

  /// The rate sampled at (the default resolved).
  double rate_hz() const { return settings_.rate_hz; }
  /// How often the live line is shown: every sample, but not more often than 5 times a second.
  std::chrono::nanoseconds display_period() const;

  /// Starts sampling: the span (the duration, or the baseload) counts from here.
  void start();
  /// The header: the board (and that its power is modelled, for a simulated one), the rate, the
  /// fields, each power monitor's settings and each absent source.
  std::string header_text() const;
  /// After start(): until the span has run out or `interrupt` has seen a signal, waits a display
  /// period, hands on the meter's readings and gives `show` the live line's text when there is
  /// some; then ends the span, stops the session and shows the last line.
  void run(const ControlInterrupt& interrupt, const std::function<void(const std::string&)>& show);
  /// After run(): the baseload per source (std::runtime_error with fewer than two samples), or the
  /// energy over the sampled span (also the JSONL log's closing record); then the meter's and the
  /// sampler's figures.
  MonitorSummary summary();

 private:
  std::string board_label_;
  MonitorSettings settings_;
  SensorRefresh refresh_;  ///< from construction until the span stops
  MeasurementSession session_;
  std::int64_t t0_ns_;  ///< time zero of the live line and the log
  std::unique_ptr<SampleLog> log_;
  LiveTelemetryLine live_;
  MonitoredSpan span_;
};

}  // namespace jetchar::jetson::measurement
