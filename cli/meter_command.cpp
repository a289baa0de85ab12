// `jetchar meter simulate <protocol>`: a meter simulator on a pseudo-terminal, printing the device
// path to give to `jetchar meter read` or `jetchar monitor --meter`, so the tool can be tried
// without hardware. `jetchar meter read <protocol> <device>`: reads an external meter and prints
// each reading, the gaps, and the energy over the run.
#include <fmt/format.h>
#include <signal.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/meter_start.h"
#include "cli/option_checks.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/energy/energy_integrator.h"
#include "jetson/meters/meter_protocol.h"
#include "jetson/meters/meter_simulator.h"
#include "jetson/meters/serial_meter_reader.h"
#include "sysfs/monotonic_clock.h"

namespace {

using namespace jetchar::jetson;

// After a signal the command has reported what it read; its status says that it was stopped.
void throw_if_interrupted(const ControlInterrupt& interrupt) {
  if (const int signal = interrupt.signal(); signal != 0) {
    throw jetchar::cli::CommandExit(jetchar::cli::kInterrupted,
                                    fmt::format("stopped by {}", signal == SIGINT ? "SIGINT" : "SIGTERM"));
  }
}

// Runs until the duration passed or SIGINT/SIGTERM (duration <= 0: until a signal), calling
// `tick` about every 100 ms.
void wait_until_done(const ControlInterrupt& interrupt, double duration_s, const std::function<void()>& tick) {
  const std::int64_t end =
      duration_s > 0 ? jetchar::sysfs::monotonic_ns() + static_cast<std::int64_t>(duration_s * 1e9) : INT64_MAX;
  while (interrupt.signal() == 0 && jetchar::sysfs::monotonic_ns() < end) {
    interrupt.wait(std::chrono::milliseconds(100));
    if (tick) tick();
  }
}

struct SimulateOptions {
  std::string protocol;
  std::string trace_file;
  std::optional<double> voltage_mv;
  double interval_ms = 0;
  std::string link;
  double duration_s = 0;
  bool fragment = false;
};

void run_simulate(const SimulateOptions& o) {
  const double voltage = o.voltage_mv.value_or(meters::typical_supply_mv(o.protocol));
  meters::SyntheticPowerTrace trace = o.trace_file.empty()
                                          ? meters::SyntheticPowerTrace::standard(voltage)
                                          : meters::SyntheticPowerTrace::from_csv(o.trace_file, voltage);
  meters::MeterSimulatorOptions options;
  options.interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.interval_ms * 1e6));
  options.link_path = o.link;
  options.fragment = o.fragment;
  meters::MeterSimulator simulator(o.protocol, std::move(trace), options);
  const ControlInterrupt interrupt;  // SIGINT/SIGTERM end the command; the handlers go with it
  simulator.start();
  std::printf("%s\n", simulator.device_path().c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "jetchar: simulating a %s meter on %s (trace period %.3f s, %.0f mV); stop with Ctrl-C\n",
               o.protocol.c_str(), simulator.slave_path().c_str(),
               static_cast<double>(simulator.trace().period_ns()) / 1e9, voltage);
  wait_until_done(interrupt, o.duration_s, {});
  simulator.stop();
  throw_if_interrupted(interrupt);
}

struct ReadOptions {
  std::string protocol;
  std::string device;
  double interval_ms = 0;
  double duration_s = 10;
};

void run_read(const ReadOptions& o) {
  meters::MeterOptions meter_options;
  meter_options.interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.interval_ms * 1e6));
  auto protocol = meters::make_meter_protocol(o.protocol, meter_options);
  meters::SerialReaderOptions options;
  options.device = o.device;
  meters::SerialMeterReader reader(std::move(protocol), options);
  const ControlInterrupt interrupt;  // SIGINT/SIGTERM end the command; the handlers go with it
  const bool averages = reader.protocol().reports_averages();
  energy::PowerTrace trace({{o.protocol, energy::RailRole::kBoardInput}});
  std::vector<meters::MeterReading> readings;
  const std::int64_t t0 = jetchar::sysfs::monotonic_ns();
  jetchar::cli::start_meter(reader, o.device);
  std::printf("time_s,power_mw,voltage_mv,current_ma\n");
  auto flush = [&] {
    readings.clear();
    reader.drain(readings);
    for (const auto& r : readings) {
      trace.append(r.host_time_ns, {r.power_mw});
      const auto field = [](std::optional<double> v) { return v ? fmt::format("{:.1f}", *v) : std::string(); };
      std::printf("%.6f,%s,%s,%s\n", static_cast<double>(r.host_time_ns - t0) / 1e9, field(r.power_mw).c_str(),
                  field(r.voltage_mv).c_str(), field(r.current_ma).c_str());
    }
    std::fflush(stdout);
  };
  wait_until_done(interrupt, o.duration_s, flush);
  reader.stop();
  flush();
  const auto status = reader.status();
  for (const auto& gap : reader.gaps()) {
    std::fprintf(stderr, "jetchar: gap %.3f s .. %.3f s: %s\n", static_cast<double>(gap.begin_ns - t0) / 1e9,
                 static_cast<double>(gap.end_ns - t0) / 1e9, gap.reason.c_str());
  }
  if (trace.size() >= 2) {
    const auto e =
        energy::integrate(trace, 0, trace.time_ns(0), trace.time_ns(trace.size() - 1), reader.protocol().integration());
    std::fprintf(stderr,
                 "jetchar: %llu readings, energy %.3f J over %.3f s (%s), %llu bad frames, %llu garbage bytes\n",
                 static_cast<unsigned long long>(status.readings), e.energy_mj.value_or(0.0) / 1000.0,
                 static_cast<double>(e.covered_ns) / 1e9, averages ? "backward rectangle" : "trapezoid",
                 static_cast<unsigned long long>(status.protocol.bad_frames),
                 static_cast<unsigned long long>(status.protocol.garbage_bytes));
  } else {
    std::fprintf(stderr, "jetchar: %llu readings from %s (%s)\n", static_cast<unsigned long long>(status.readings),
                 o.device.c_str(), status.last_error.empty() ? "no error" : status.last_error.c_str());
  }
  throw_if_interrupted(interrupt);
}

void add_meter_command(CLI::App& app) {
  CLI::App& meter = jetchar::cli::command_group(app, "meter", "External power meters on a serial port");
  const std::string protocols = "wattsup, wt300, um24c, um25c, um34c, ina";

  auto sim = std::make_shared<SimulateOptions>();
  CLI::App* simulate = meter.add_subcommand(
      "simulate", "Run a meter simulator on a pseudo-terminal and print its device path (first line of stdout)");
  simulate->add_option("protocol", sim->protocol, "Protocol: " + protocols)->required();
  simulate->add_option("--trace", sim->trace_file,
                       "CSV of power breakpoints 't_s,power_mw' (first at 0; the trace repeats); default: a 4 s "
                       "idle/ramp/burst/step trace");
  simulate
      ->add_option("--voltage", sim->voltage_mv,
                   "Supply voltage in mV (default: 230000 wattsup, 5000 UM meters, 19000 otherwise)")
      ->check(jetchar::cli::above(0, "millivolts"));
  simulate
      ->add_option("--interval", sim->interval_ms,
                   "Report interval in ms (Watts Up? logging interval, Yokogawa update rate, INA line period); "
                   "0 = the protocol's default")
      ->check(jetchar::cli::at_least(0, "milliseconds, 0 = the protocol's default"));
  simulate->add_option("--link", sim->link, "Keep a symlink at this path pointing to the current pty");
  simulate->add_option("--duration", sim->duration_s, "Stop after this many seconds (default: until Ctrl-C)")
      ->check(jetchar::cli::duration_seconds("seconds, 0 = until Ctrl-C"));
  simulate->add_flag("--fragment", sim->fragment, "Write replies in small pieces (tests frame reassembly)");
  simulate->callback([sim] { run_simulate(*sim); });

  auto rd = std::make_shared<ReadOptions>();
  CLI::App* read =
      meter.add_subcommand("read", "Read an external meter: CSV readings on stdout, gaps and energy on stderr");
  read->add_option("protocol", rd->protocol, "Protocol: " + protocols)->required();
  read->add_option("device", rd->device, "Serial device (/dev/ttyUSB0, /dev/rfcomm0, or a simulator's pty)")
      ->required();
  read->add_option("--interval", rd->interval_ms,
                   "Meter interval in ms (0 = protocol default: 1000 wattsup, 500 wt300, 100 UM poll, 10 ina)")
      ->check(jetchar::cli::at_least(0, "milliseconds, 0 = the protocol's default"));
  read->add_option("--duration", rd->duration_s, "Seconds to read (0 = until Ctrl-C)")
      ->capture_default_str()
      ->check(jetchar::cli::duration_seconds("seconds, 0 = until Ctrl-C"));
  read->callback([rd] { run_read(*rd); });
}

}  // namespace

JETCHAR_REGISTER_COMMAND(55, add_meter_command);
