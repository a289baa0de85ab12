// `jetchar monitor`: live telemetry like tegrastats — per-rail power, CPU load and clocks, GPU,
// EMC, memory, temperatures, and an external meter — as one refreshing line on a terminal, a
// log line per second otherwise, and every sample in CSV or JSONL when asked. With --baseload S
// it measures idle power per rail (mean, spread) for S seconds instead.
//
// The measuring is the library's measurement session (jetson/measurement/measurement_session.h),
// the same a sweep's runs use: the sampler, the meter, the meter's alignment onto the onboard clock,
// the energy and the sample log. This file parses the options and prints.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/option_checks.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/energy/baseload.h"
#include "jetson/measurement/measurement_session.h"
#include "jetson/measurement/sample_log.h"
#include "jetson/telemetry/telemetry_line.h"
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

void print_header(const std::string& board_label, double rate_hz, const TelemetrySampler& sampler) {
  std::fprintf(stderr, "jetchar monitor: %s, %.3g Hz, %zu fields\n", board_label.c_str(), rate_hz,
               sampler.layout().fields.size());
  const auto opt = [](const auto& v) { return v ? std::to_string(*v) : std::string("-"); };
  for (const auto& ina : sampler.power_monitor_settings()) {
    std::fprintf(stderr, "  power monitor %s (%s): samples %s, update_interval %s ms, running_mode %s\n",
                 ina.device.c_str(), ina.driver.c_str(), opt(ina.samples).c_str(), opt(ina.update_interval_ms).c_str(),
                 opt(ina.running_mode).c_str());
  }
  for (const auto& note : sampler.notes()) std::fprintf(stderr, "  absent: %s\n", note.c_str());
}

void print_baseload(const energy::Baseload& b, const std::string& title) {
  std::printf("%s over %.3f s\n", title.c_str(), static_cast<double>(b.end_ns - b.begin_ns) / 1e9);
  std::printf("  %-20s %12s %12s %12s %12s %8s\n", "rail", "mean_mW", "stddev_mW", "min_mW", "max_mW", "samples");
  for (const auto& rail : b.rails) {
    const auto f = [](std::optional<double> v) { return v ? fmt::format("{:.1f}", *v) : std::string("-"); };
    std::printf("  %-20s %12s %12s %12s %12s %8zu  %s\n", rail.name.c_str(), f(rail.mean_power_mw).c_str(),
                f(rail.stddev_mw).c_str(), f(rail.min_mw).c_str(), f(rail.max_mw).c_str(), rail.samples,
                std::string(energy::to_string(rail.role)).c_str());
  }
  if (b.total_power_mw) std::printf("  total: %.1f mW (%s)\n", *b.total_power_mw, b.total.label.c_str());
  else std::printf("  total: - (%s)\n", b.total.label.c_str());
}

void print_baseloads(measurement::MeasurementSession& session, std::int64_t begin_ns, std::int64_t end_ns) {
  print_baseload(energy::measure_baseload(session.onboard().trace(), begin_ns, end_ns),
                 "idle power (baseload), onboard rails");
  if (session.meters().empty()) return;
  const auto& trace = session.meters().alignment(0).trace;
  if (trace.size() < 2) return;
  print_baseload(
      energy::measure_baseload(trace, trace.time_ns(0), trace.time_ns(trace.size() - 1),
                               session.meters().protocol(0).reports_averages() ? energy::Integration::kBackwardRectangle
                                                                               : energy::Integration::kTrapezoid),
      "idle power (baseload), external meter");
}

void print_energy(const measurement::SessionEnergy& e, const measurement::MeterSession& meters) {
  const double window_s = static_cast<double>(e.end_ns - e.begin_ns) / 1e9;
  if (!e.onboard) {
    std::fprintf(stderr, "energy: no power rails or energy counters on this board\n");
  } else {
    std::fprintf(stderr, "energy over %.3f s:", window_s);
    for (const auto& rail : e.onboard->rails) {
      if (rail.energy.energy_mj) std::fprintf(stderr, " %s %.3f J", rail.name.c_str(), *rail.energy.energy_mj / 1000);
    }
    if (e.onboard->total_energy_mj)
      std::fprintf(stderr, "; total %.3f J (%s)", *e.onboard->total_energy_mj / 1000, e.onboard->total.label.c_str());
    std::fprintf(stderr, "\n");
  }
  if (e.meters.empty()) return;
  const auto& m = e.meters.front();
  if (m.channel.energy_mj) {
    std::fprintf(stderr, "meter energy: %.3f J over the onboard window (%.3f s%s)\n", *m.channel.energy_mj / 1000,
                 window_s,
                 m.whole_energy_mj()
                     ? ""
                     : fmt::format(", meter covers {:.3f} s of it, {:.3f} s in gaps",
                                   static_cast<double>(m.channel.covered_ns) / 1e9, static_cast<double>(m.gap_ns) / 1e9)
                           .c_str());
  } else {
    std::fprintf(stderr, "meter energy: - (no meter readings inside the onboard window)\n");
  }
  const auto& a = meters.alignment(0);
  const std::string clock =
      a.fit ? fmt::format(
                  "meter clock {} over {} reports in {} stretch(es) (interval {:.3f} ms, receive delay up to {:.1f} ms "
                  "removed)",
                  a.clock == "clock fit" ? "fitted"
                                         : "placed at the nominal interval (arrival too bursty to fit a slope)",
                  a.trace.size(), a.stretches, a.fit->interval_ns / 1e6, a.fit->max_delay_ns / 1e6)
            : "host receive times (too few reports to fit)";
  std::fprintf(stderr, "  alignment: %s; offset vs onboard total: %s\n", clock.c_str(), a.offset_note.c_str());
}

void print_meter_status(const measurement::MeterSession& meters) {
  if (meters.empty()) return;
  const auto status = meters.status(0);
  std::fprintf(stderr, "meter %s: %llu readings, %zu gaps, %llu bad frames%s%s\n", meters.protocol(0).name().data(),
               static_cast<unsigned long long>(status.readings), meters.gaps(0).size(),
               static_cast<unsigned long long>(status.protocol.bad_frames),
               status.last_error.empty() ? "" : ", last error: ", status.last_error.c_str());
}

void print_sampler_cost(const SamplerStats& stats, double rate_hz) {
  const double achieved =
      stats.elapsed_ns > 0 ? static_cast<double>(stats.samples) * 1e9 / static_cast<double>(stats.elapsed_ns) : 0;
  std::fprintf(stderr,
               "sampler: %llu samples at %.2f Hz (asked %.3g), %llu missed deadlines, %llu dropped; cost %.1f us CPU "
               "per sample, %.3f %% of one core\n",
               static_cast<unsigned long long>(stats.samples), achieved, rate_hz,
               static_cast<unsigned long long>(stats.missed_deadlines), static_cast<unsigned long long>(stats.dropped),
               stats.cpu_ns_per_sample() / 1e3, 100.0 * stats.cpu_fraction());
}

// The live display: the newest sample, as one refreshing line on a terminal or a line per second
// otherwise (none when every sample goes to a log file or while measuring a baseload).
class LiveDisplay {
 public:
  LiveDisplay(const TelemetryLayout& layout, bool tty, bool quiet, std::int64_t t0)
      : formatter_(layout), tty_(tty), quiet_(quiet), t0_(t0), next_print_(t0 + 1'000'000'000) {}

  void sample(const TelemetrySample& s) {
    std::lock_guard lock(mutex_);
    latest_ = s;
  }
  void meter_power(std::optional<double> mw) {
    if (mw) meter_mw_ = mw;
  }
  void show(bool final) {
    std::optional<TelemetrySample> s;
    {
      std::lock_guard lock(mutex_);
      s = latest_;
    }
    if (quiet_ || !s) return;
    if (s->time_ns == shown_ns_) {
      if (final && tty_) std::printf("\n");  // ends the refreshing line
      return;
    }
    shown_ns_ = s->time_ns;
    const std::string line = formatter_.format(*s, meter_mw_);
    if (tty_) {
      std::printf("\r\033[K%s%s", line.c_str(), final ? "\n" : "");
    } else if (s->time_ns >= next_print_ || final) {
      std::printf("%.3f %s\n", static_cast<double>(s->time_ns - t0_) / 1e9, line.c_str());
      next_print_ += 1'000'000'000;
    }
    std::fflush(stdout);
  }

 private:
  TelemetryLineFormatter formatter_;
  bool tty_, quiet_;
  std::int64_t t0_, next_print_;
  std::int64_t shown_ns_ = -1;
  std::mutex mutex_;
  std::optional<TelemetrySample> latest_;
  std::optional<double> meter_mw_;
};

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
  LiveDisplay display(layout, tty, o.baseload_s > 0 || (!tty && log), t0);
  // The session samples on while it stops (it drains until its trace covers the stop): samples
  // after the monitored span are not the monitor's to log or show.
  std::atomic<std::int64_t> last_ns{INT64_MAX};
  session.onboard().set_sample_listener([&](const TelemetrySample& s) {
    if (s.time_ns > last_ns.load()) return;
    if (log) log->sample(s);
    display.sample(s);
  });
  // --duration counts from here, where sampling starts (the meters, already reporting, were
  // waited for above; starting the sampler and printing the header count as monitoring time).
  const std::int64_t begin = monotonic_ns();
  session.start();

  // From here on a signal ends the monitor with its summary (and status 130), not mid-sample.
  const ControlInterrupt interrupt;
  print_header(board_label, o.rate_hz, session.onboard().sampler());

  const double duration_s = o.baseload_s > 0 ? o.baseload_s : o.duration_s;
  const std::int64_t end = duration_s > 0 ? begin + static_cast<std::int64_t>(duration_s * 1e9) : INT64_MAX;
  const auto display_period_ns = std::max<std::int64_t>(static_cast<std::int64_t>(1e9 / o.rate_hz), 200'000'000);
  std::vector<std::vector<meters::MeterReading>> readings;
  const auto pump = [&](bool final) {
    readings.clear();
    session.meters().drain(readings);
    for (const auto& r : readings.empty() ? std::vector<meters::MeterReading>{} : readings.front()) {
      if (log) log->meter(r);
      display.meter_power(r.power_mw);
    }
    display.show(final);
  };
  while (interrupt.signal() == 0 && monotonic_ns() < end) {
    const auto wait_ns = std::min<std::int64_t>(display_period_ns, std::max<std::int64_t>(end - monotonic_ns(), 0));
    interrupt.wait(std::chrono::ceil<std::chrono::milliseconds>(std::chrono::nanoseconds(wait_ns)));
    pump(false);
  }
  last_ns.store(std::min(end, monotonic_ns()));
  pump(false);
  session.stop();
  pump(true);
  if (board.simulated()) board.sim->stop_refresh();

  const auto span = session.sampled_span();
  if (o.baseload_s > 0) {
    if (!span) throw std::runtime_error("baseload: fewer than two samples were taken; use a longer --baseload");
    print_baseloads(session, span->first, span->second);
  } else if (span) {
    const auto e = session.energy(span->first, span->second);
    print_energy(e, session.meters());
    if (log) log->summary(e, session.meters());
  }
  print_meter_status(session.meters());
  print_sampler_cost(session.onboard().stats(), o.rate_hz);
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
