// `jetchar monitor`: live telemetry like tegrastats — per-rail power, CPU load and clocks, GPU,
// EMC, memory, temperatures, and an external meter — as one refreshing line on a terminal, a
// log line per second otherwise, and every sample in CSV or JSONL when asked. With --baseload S
// it measures idle power per rail (mean, spread) for S seconds instead.
//
// The measuring is the library's measurement session (jetson/measurement/measurement_session.h),
// the same a sweep's runs use: the sampler, the meter, the meter's alignment onto the onboard clock,
// the energy and the sample log, run for the monitored span (monitored_span.h) and worded by
// session_summary.h and live_telemetry_line.h. This file parses the options and prints.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/measurement/measurement_session.h"
#include "jetson/measurement/monitored_span.h"
#include "jetson/measurement/sample_log.h"
#include "jetson/measurement/session_summary.h"
#include "jetson/telemetry/live_telemetry_line.h"
#include "sysfs/monotonic_clock.h"

namespace {

using namespace jetchar::jetson;
using jetchar::sysfs::monotonic_ns;

struct MonitorOptions {
  double rate_hz = 0;  // 0: 2 Hz on a terminal, 10 Hz otherwise
  std::string meter;
  double meter_interval_ms = 0;
  double duration_s = 0;
  std::string csv;
  std::string jsonl;
  std::string board = "auto";
  std::string root = "/";
  bool root_given = false;
  double baseload_s = 0;
};

measurement::MeasurementOptions session_options(const MonitorOptions& o, const BoardHandle& board) {
  measurement::MeasurementOptions options;
  options.sample_rate_hz = o.rate_hz;
  options.onboard_modelled = board.simulated();
  // A meter named on the command line that cannot be opened ends the command before anything is
  // written; a sweep's meter is retried in the background instead.
  options.meter_open = measurement::MeterSession::Open::kRequired;
  if (!o.meter.empty()) {
    auto spec = measurement::parse_meter_spec(o.meter, "--meter");
    spec.interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.meter_interval_ms * 1e6));
    options.meters.push_back(std::move(spec));
  }
  return options;
}

std::unique_ptr<measurement::SampleLog> open_log(const MonitorOptions& o, const TelemetryLayout& layout,
                                                 std::size_t meters) {
  if (!o.csv.empty() && !o.jsonl.empty()) throw std::invalid_argument("--csv and --jsonl exclude each other; pick one");
  if (o.csv.empty() && o.jsonl.empty()) return nullptr;
  return o.csv.empty() ? std::make_unique<measurement::SampleLog>(o.jsonl, measurement::SampleLog::Format::kJsonl,
                                                                  layout, meters, "--jsonl")
                       : std::make_unique<measurement::SampleLog>(o.csv, measurement::SampleLog::Format::kCsv, layout,
                                                                  meters, "--csv");
}

void print(std::FILE* stream, const std::string& text) { std::fputs(text.c_str(), stream); }

void run_monitor(MonitorOptions o) {
  // The same --board/--root handling as every other command (jetson/discovery/board_handle.h). A simulated
  // board's rails follow its power model, refreshed in the background while we sample.
  BoardHandle board = open_board(o.board, o.root_given ? std::optional<std::filesystem::path>(o.root) : std::nullopt);
  std::string board_label = board.label;
  if (board.simulated()) {
    board.sim->update();
    board.sim->start_refresh(std::chrono::milliseconds(100));
    board_label += ", power figures are modelled";
  }
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  if (o.rate_hz == 0) o.rate_hz = tty ? 2.0 : 10.0;

  measurement::MeasurementSession session(*board.root, session_options(o, board));
  const TelemetryLayout& layout = session.onboard().sampler().layout();
  const std::int64_t t0 = monotonic_ns();
  // The meter is opened before the sample log is created: a meter that cannot be opened ends the
  // command before it has written anything.
  session.start_meters();
  auto log = open_log(o, layout, session.meters().size());
  if (log) log->set_origin_ns(t0);
  LiveTelemetryLine live(layout, tty, o.baseload_s > 0 || (!tty && log), t0);
  const auto show = [&live](bool final) {
    if (const std::string text = live.show(final); !text.empty()) {
      print(stdout, text);
      std::fflush(stdout);
    }
  };
  measurement::MonitoredSpan span(
      session,
      [&](const TelemetrySample& s) {
        if (log) log->sample(s);
        live.sample(s);
      },
      [&](const meters::MeterReading& r) {
        if (log) log->meter(r);
        live.meter_power(r.power_mw);
      });
  span.start(o.baseload_s > 0 ? o.baseload_s : o.duration_s);

  // From here on a signal ends the monitor with its summary (and status 130), not mid-sample.
  const ControlInterrupt interrupt;
  print(stderr, measurement::sampler_header_text(board_label, o.rate_hz, session.onboard().sampler()));
  const auto display_period_ns = std::max<std::int64_t>(static_cast<std::int64_t>(1e9 / o.rate_hz), 200'000'000);
  while (interrupt.signal() == 0 && span.running()) {
    interrupt.wait(span.next_wait(display_period_ns));
    span.pump();
    show(false);
  }
  span.end();
  show(false);
  span.stop();
  show(true);
  if (board.simulated()) board.sim->stop_refresh();

  const auto sampled = session.sampled_span();
  if (o.baseload_s > 0) {
    if (!sampled) throw std::runtime_error("baseload: fewer than two samples were taken; use a longer --baseload");
    for (const auto& source : measurement::session_baseloads(session, sampled->first, sampled->second))
      print(stdout, measurement::baseload_text(source));
  } else if (sampled) {
    const auto e = session.energy(sampled->first, sampled->second);
    print(stderr, measurement::energy_text(e, session.meters()));
    if (log) log->summary(e, session.meters());
  }
  print(stderr, measurement::meter_status_text(session.meters()));
  print(stderr, measurement::sampler_cost_text(session.onboard().stats(), o.rate_hz));
  if (const int signal = interrupt.signal(); signal != 0) {
    throw jetchar::cli::CommandExit(jetchar::cli::kInterrupted,
                                    fmt::format("stopped by {}", signal == SIGINT ? "SIGINT" : "SIGTERM"));
  }
}

void add_monitor_command(CLI::App& app) {
  auto o = std::make_shared<MonitorOptions>();
  CLI::App* cmd = app.add_subcommand(
      "monitor",
      "Live telemetry (rails, CPU, GPU, EMC, memory, temperatures, external meter): one refreshing line on a "
      "terminal, a line per second otherwise; --baseload S measures idle power per rail");
  cmd->add_option("--rate", o->rate_hz, "Samples per second, 1 to 1000 (default: 2 on a terminal, 10 otherwise)")
      ->check(jetchar::cli::between(1, 1000, "samples per second"));
  cmd->add_option("--meter", o->meter,
                  "External meter as PROTOCOL:DEVICE, e.g. wattsup:/dev/ttyUSB0 (protocols: wattsup, wt300, um24c, "
                  "um25c, um34c, ina; try one with `jetchar meter simulate`). At the end its energy over the onboard "
                  "window is reported on the onboard time base, aligned as a sweep aligns it: report times fitted to "
                  "the meter's interval, and an offset from cross-correlation with measured (not simulated) onboard "
                  "power, applied when the correlation is >= 0.8");
  cmd->add_option("--meter-interval", o->meter_interval_ms, "Meter interval in ms (0 = the protocol's default)")
      ->check(jetchar::cli::at_least(0, "milliseconds, 0 = the protocol's default"));
  cmd->add_option("--duration", o->duration_s, "Stop after this many seconds (default: until Ctrl-C)")
      ->check(jetchar::cli::at_least(0, "seconds, 0 = until Ctrl-C"));
  auto* csv = cmd->add_option("--csv", o->csv, "Write every sample (and meter reading) to this CSV file");
  auto* jsonl = cmd->add_option("--jsonl", o->jsonl,
                                "Write every sample (and meter reading) as JSON lines, closed by a summary record "
                                "(window in CLOCK_MONOTONIC ns, energy per rail, total, the meter's aligned energy)");
  csv->excludes(jsonl);
  cmd->add_option("--board", o->board, "auto, host, jetson, or sim:<fixture> (a simulated board)")
      ->capture_default_str();
  cmd->add_option("--root", o->root, "Read the kernel interfaces under this directory instead of /")
      ->each([o](const std::string&) { o->root_given = true; });
  cmd->add_option("--baseload", o->baseload_s, "Measure idle power for this many seconds and report it per rail")
      ->check(jetchar::cli::above(0, "seconds"));
  jetchar::cli::add_examples(*cmd,
                             "Examples:\n"
                             "  jetchar monitor --board sim:agx-thor-r38 --duration 2\n"
                             "  jetchar monitor --board sim:agx-orin-r36 --duration 2 --csv samples.csv");
  cmd->callback([o] { run_monitor(*o); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(50, add_monitor_command);
