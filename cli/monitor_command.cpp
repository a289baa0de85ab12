// `jetchar monitor`: live telemetry like tegrastats — per-rail power, CPU load and clocks, GPU,
// EMC, memory, temperatures, and an external meter — as one refreshing line on a terminal, a
// log line per second otherwise, and every sample in CSV or JSONL when asked. With --baseload S
// it measures idle power per rail (mean, spread) for S seconds instead.
//
// The measuring is the library's (jetson/measurement/monitor_measurement.h): the measurement
// session a sweep's runs use too, run for the monitored span, with the live line, the sample log
// and the summary. This file parses the options and prints.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/measurement/monitor_measurement.h"
#include "jetson/open_board.h"

namespace {

using namespace jetchar::jetson;

struct MonitorOptions {
  double rate_hz = 0;  // 0: the monitor's default (measurement::MonitorSettings)
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

measurement::MonitorSettings monitor_settings(const MonitorOptions& o) {
  measurement::MonitorSettings settings;
  settings.rate_hz = o.rate_hz;
  settings.tty = ::isatty(STDOUT_FILENO) == 1;
  if (!o.meter.empty()) {
    settings.meter = measurement::parse_meter_spec(o.meter, "--meter");
    settings.meter->interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.meter_interval_ms * 1e6));
  }
  // CLI11 lets at most one of --csv and --jsonl through.
  using Format = measurement::SampleLog::Format;
  if (!o.csv.empty()) settings.log = measurement::MonitorSettings::Log{o.csv, Format::kCsv, "--csv"};
  if (!o.jsonl.empty()) settings.log = measurement::MonitorSettings::Log{o.jsonl, Format::kJsonl, "--jsonl"};
  settings.duration_s = o.duration_s;
  settings.baseload_s = o.baseload_s;
  return settings;
}

void print(std::FILE* stream, const std::string& text) { std::fputs(text.c_str(), stream); }

void run_monitor(const MonitorOptions& o) {
  // The same --board/--root handling as every other command (jetson/discovery/board_handle.h).
  BoardHandle board = open_board(o.board, o.root_given ? std::optional<std::filesystem::path>(o.root) : std::nullopt);
  measurement::MonitorMeasurement monitor(board, monitor_settings(o));
  monitor.start();
  // From here on a signal ends the monitor with its summary (and status 130), not mid-sample.
  const ControlInterrupt interrupt;
  print(stderr, monitor.header_text());
  monitor.run(interrupt, [](const std::string& text) {
    print(stdout, text);
    std::fflush(stdout);
  });
  const measurement::MonitorSummary summary = monitor.summary();
  print(stdout, summary.results);
  print(stderr, summary.notes);
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
      ->check(jetchar::cli::duration_seconds("seconds, 0 = until Ctrl-C"));
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
