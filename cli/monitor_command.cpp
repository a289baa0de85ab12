// `jetchar monitor`: live telemetry like tegrastats — per-rail power, CPU load and clocks, GPU,
// EMC, memory, temperatures, and an external meter — as one refreshing line on a terminal, a
// log line per second otherwise, and every sample in CSV or JSONL when asked. With --baseload S
// it measures idle power per rail (mean, spread) for S seconds instead.
//
// With --meter, the meter's stream is put on the onboard time base before its energy is taken
// over the onboard window (first to last sample): report times are reconstructed from the
// meter's own interval and sequence where no report was lost (jetson/energy/stream_alignment.h),
// then a constant offset is estimated by cross-correlating the meter's power with the onboard
// total and applied only when the correlation is strong (a power step both saw).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/command.h"
#include "cli/exit_code.h"
#include "cli/meter_start.h"
#include "cli/option_checks.h"
#include "jetson/energy/baseload.h"
#include "jetson/energy/energy_integrator.h"
#include "jetson/energy/stream_alignment.h"
#include "jetson/energy/window_energy.h"
#include "jetson/meters/meter_protocol.h"
#include "jetson/meters/serial_meter_reader.h"
#include "jetson/discovery/board_handle.h"
#include "jetson/telemetry/telemetry_discovery.h"
#include "jetson/telemetry/telemetry_sampler.h"
#include "sysfs/root.h"

namespace {

using namespace jetchar::jetson;

std::atomic<int> g_signal{0};  // the SIGINT/SIGTERM that ends the monitor, 0 until one arrives
void on_signal(int signal) { g_signal.store(signal); }

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

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

// Formats one sample the way tegrastats does, with units.
class LineFormatter {
 public:
  explicit LineFormatter(const TelemetryLayout& layout) : layout_(layout) {}

  std::string format(const TelemetrySample& s, std::optional<double> meter_mw) const {
    std::string line;
    const auto value = [&](std::size_t i) { return s.values[i].get(); };
    std::string cpu;
    std::string clusters;
    std::optional<double> gpu_load, gpu_freq, emc_util, emc_freq, mem;
    std::string rails, temps;
    std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> nvml;  // GPU -> util %, clock MHz
    for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
      const auto& f = layout_.fields[i];
      const auto v = value(i);
      switch (f.group) {
        case FieldGroup::kCpuUtil:
          // "-": no figure (core offline, or no scheduler tick since the last sample).
          cpu += (cpu.empty() ? "" : ",") + (v ? fmt::format("{:.0f}%", *v) : std::string("-"));
          break;
        case FieldGroup::kCpuFreq:
          clusters += fmt::format(" {}@{}", f.name.substr(0, f.name.find('.')), v ? fmt::format("{:.0f}MHz", *v / 1000) : "?");
          break;
        case FieldGroup::kGpu:
          if (f.name == "gpu.load_pct") gpu_load = v;
          else gpu_freq = v;
          break;
        case FieldGroup::kEmc:
          if (f.name == "emc.util_pct") emc_util = v;
          else emc_freq = v;
          break;
        case FieldGroup::kMemory: mem = v; break;
        case FieldGroup::kNvmlGpu: {
          const std::size_t dot = f.name.find('.');
          auto& [util, clock] = nvml[f.name.substr(0, dot)];
          if (f.name.compare(dot + 1, std::string::npos, "util_pct") == 0) util = v;
          if (f.name.compare(dot + 1, std::string::npos, "graphics_clock_mhz") == 0) clock = v;
          break;
        }
        case FieldGroup::kTemperature:
          temps += fmt::format(" {}@{}", f.name.substr(0, f.name.rfind('.')), v ? fmt::format("{:.1f}C", *v / 1000) : "?");
          break;
        case FieldGroup::kRail:
        case FieldGroup::kEnergyCounter:
          if (f.unit == "mW") {
            rails += fmt::format(" {} {}", f.name.substr(0, f.name.rfind('.')),
                                 v ? fmt::format("{:.0f}mW{}", *v, s.values[i].repeated() ? "*" : "") : "?");
          }
          break;
      }
    }
    if (mem) line += fmt::format("RAM {:.0f}MB ", *mem / 1024);
    if (!cpu.empty()) line += "CPU [" + cpu + "]";
    line += clusters;
    if (emc_freq) line += fmt::format(" EMC_FREQ {}@{:.0f}MHz", emc_util ? fmt::format("{:.0f}%", *emc_util) : "", *emc_freq / 1e6);
    if (gpu_load || gpu_freq) {
      line += fmt::format(" GR3D_FREQ {}@{}", gpu_load ? fmt::format("{:.0f}%", *gpu_load) : "",
                          gpu_freq ? fmt::format("{:.0f}MHz", *gpu_freq / 1e6) : "?");
    }
    for (const auto& [gpu, reading] : nvml) {
      line += fmt::format(" {} {}@{}", gpu, reading.first ? fmt::format("{:.0f}%", *reading.first) : "",
                          reading.second ? fmt::format("{:.0f}MHz", *reading.second) : "?");
    }
    line += temps;
    line += rails;
    if (meter_mw) line += fmt::format(" METER {:.0f}mW", *meter_mw);
    return line;
  }

 private:
  const TelemetryLayout& layout_;
};

class SampleLog {
 public:
  SampleLog(const MonitorOptions& o, const TelemetryLayout& layout, bool with_meter) : layout_(layout) {
    if (!o.csv.empty() && !o.jsonl.empty()) throw std::invalid_argument("--csv and --jsonl exclude each other; pick one");
    const std::string& path = o.csv.empty() ? o.jsonl : o.csv;
    if (path.empty()) return;
    jsonl_ = !o.jsonl.empty();
    out_.open(path, std::ios::trunc);
    if (!out_) throw std::invalid_argument(fmt::format("--{} {}: cannot be written", jsonl_ ? "jsonl" : "csv", path));
    if (!jsonl_) {
      out_ << "source,time_s";
      for (const auto& f : layout.fields) out_ << ',' << f.name;
      if (with_meter) out_ << ",meter.power_mw,meter.voltage_mv,meter.current_ma";
      out_ << ",repeated\n";
    }
    with_meter_ = with_meter;
    enabled_ = true;
  }
  bool enabled() const { return enabled_; }

  void sample(const TelemetrySample& s, std::int64_t t0) {
    if (!enabled_) return;
    const double t = static_cast<double>(s.time_ns - t0) / 1e9;
    std::string repeated;
    for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
      if (s.values[i].repeated()) repeated += (repeated.empty() ? "" : " ") + layout_.fields[i].name;
    }
    if (jsonl_) {
      nlohmann::json j;
      j["source"] = "onboard";
      j["time_s"] = t;
      nlohmann::json values = nlohmann::json::object();
      for (std::size_t i = 0; i < layout_.fields.size(); ++i) {
        values[layout_.fields[i].name] = s.values[i].valid() ? nlohmann::json(s.values[i].value) : nlohmann::json();
      }
      j["values"] = std::move(values);
      if (!repeated.empty()) j["repeated"] = repeated;
      out_ << j.dump() << '\n';
    } else {
      out_ << "onboard," << fmt::format("{:.6f}", t);
      for (const auto& v : s.values) out_ << ',' << (v.valid() ? fmt::format("{}", v.value) : std::string());
      if (with_meter_) out_ << ",,,";
      out_ << ',' << repeated << '\n';
    }
  }

  // JSONL only: a closing record with the window (CLOCK_MONOTONIC ns, so another process can
  // compare with its own records), the energy per rail and the meter's aligned energy.
  void summary(std::int64_t begin_ns, std::int64_t end_ns, const energy::PowerTrace& trace,
               const std::optional<energy::ChannelEnergy>& meter, const std::optional<energy::MeterClockFit>& fit,
               const std::optional<energy::OffsetEstimate>& offset, bool offset_applied, const std::string& offset_note,
               const energy::PowerTrace* meter_trace = nullptr) {
    if (!enabled_ || !jsonl_) return;
    nlohmann::json j;
    j["source"] = "summary";
    j["window_begin_monotonic_ns"] = begin_ns;
    j["window_end_monotonic_ns"] = end_ns;
    nlohmann::json rails = nlohmann::json::object();
    if (trace.size() >= 2 && trace.channel_count() > 0) {
      const auto e = energy::window_energy(trace, "monitor", begin_ns, end_ns);
      for (const auto& rail : e.rails) {
        rails[rail.name] = rail.energy.energy_mj ? nlohmann::json(*rail.energy.energy_mj) : nlohmann::json();
      }
      j["total_energy_mj"] = e.total_energy_mj ? nlohmann::json(*e.total_energy_mj) : nlohmann::json();
      j["total"] = e.total.label;
    }
    j["rail_energy_mj"] = std::move(rails);
    if (meter) {
      j["meter_energy_mj"] = meter->energy_mj ? nlohmann::json(*meter->energy_mj) : nlohmann::json();
      j["meter_covered_ns"] = meter->covered_ns;
      j["meter_first_ns"] = meter_trace && !meter_trace->empty() ? nlohmann::json(meter_trace->time_ns(0)) : nlohmann::json();
      j["meter_last_ns"] = meter_trace && !meter_trace->empty() ? nlohmann::json(meter_trace->time_ns(meter_trace->size() - 1))
                                                                 : nlohmann::json();
      j["meter_readings"] = meter_trace ? meter_trace->size() : 0;
      j["meter_clock_fit"] = fit ? nlohmann::json{{"interval_ns", fit->interval_ns}, {"origin_ns", fit->origin_ns},
                                                  {"max_delay_ns", fit->max_delay_ns}}
                                 : nlohmann::json();
      j["meter_offset_ns"] = offset ? nlohmann::json(offset->offset_ns) : nlohmann::json();
      j["meter_offset_correlation"] = offset ? nlohmann::json(offset->correlation) : nlohmann::json();
      j["meter_offset_applied"] = offset_applied;
      j["meter_offset_note"] = offset_note;
    }
    out_ << j.dump() << '\n';
  }

  void meter(const meters::MeterReading& r, std::int64_t t0) {
    if (!enabled_) return;
    const double t = static_cast<double>(r.host_time_ns - t0) / 1e9;
    const auto num = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
    if (jsonl_) {
      nlohmann::json j;
      j["source"] = "meter";
      j["time_s"] = t;
      j["values"] = {{"power_mw", r.power_mw ? nlohmann::json(*r.power_mw) : nlohmann::json()},
                     {"voltage_mv", r.voltage_mv ? nlohmann::json(*r.voltage_mv) : nlohmann::json()},
                     {"current_ma", r.current_ma ? nlohmann::json(*r.current_ma) : nlohmann::json()}};
      out_ << j.dump() << '\n';
    } else {
      out_ << "meter," << fmt::format("{:.6f}", t) << std::string(layout_.fields.size(), ',') << ','
           << num(r.power_mw) << ',' << num(r.voltage_mv) << ',' << num(r.current_ma) << ",\n";
    }
  }

 private:
  const TelemetryLayout& layout_;
  std::ofstream out_;
  bool jsonl_ = false;
  bool with_meter_ = false;
  bool enabled_ = false;
};

std::unique_ptr<meters::SerialMeterReader> open_meter(const MonitorOptions& o) {
  if (o.meter.empty()) return nullptr;
  const auto colon = o.meter.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == o.meter.size()) {
    throw std::invalid_argument(fmt::format(
        "--meter '{}' is not PROTOCOL:DEVICE (e.g. wattsup:/dev/ttyUSB0; protocols: wattsup, wt300, um24c, um25c, "
        "um34c, ina)",
        o.meter));
  }
  meters::MeterOptions meter_options;
  meter_options.interval = std::chrono::nanoseconds(static_cast<std::int64_t>(o.meter_interval_ms * 1e6));
  auto protocol = meters::make_meter_protocol(o.meter.substr(0, colon), meter_options);
  meters::SerialReaderOptions options;
  // The meter hangs off this machine whatever board is being characterised: its device is a path
  // of the host's /dev, not of a fixture root.
  options.device = o.meter.substr(colon + 1);
  auto reader = std::make_unique<meters::SerialMeterReader>(std::move(protocol), options);
  return reader;
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

// The meter's stream on the onboard time base (see the header comment).
struct MeterAlignment {
  energy::PowerTrace trace{{{"meter", energy::RailRole::kBoardInput}}};
  std::string clock;  ///< how report times were obtained
  std::optional<energy::MeterClockFit> fit;
  std::optional<energy::OffsetEstimate> offset;  ///< estimated (applied when accepted)
  bool offset_applied = false;
  std::string offset_note;
};

// Correlation needed before an estimated offset is trusted: a clear power step seen by both.
constexpr double kMinAlignmentCorrelation = 0.8;

MeterAlignment align_meter(const std::vector<meters::MeterReading>& readings, bool gaps, const meters::MeterProtocol& protocol,
                           const energy::PowerTrace& onboard) {
  MeterAlignment a;
  std::vector<std::int64_t> receive;
  std::vector<std::uint64_t> sequence;
  bool increasing = true;
  bool meter_numbered = true;
  for (const auto& r : readings) {
    if (!sequence.empty() && r.sequence <= sequence.back()) increasing = false;
    // Readings with the meter's clock (INA lines) also carry the meter's own line number.
    if (!r.device_time_us) meter_numbered = false;
    receive.push_back(r.host_time_ns);
    sequence.push_back(r.sequence);
  }
  const auto nominal_ns = static_cast<double>(protocol.expected_interval().count());
  std::vector<std::int64_t> times = receive;
  // The fit needs to know how many intervals lie between two reports. The meter's own line
  // numbers say so across a gap (a port opened late reads a full buffer of old lines, then
  // lines from after those it dropped); the reader's own count does not.
  if (readings.size() >= 2 && increasing && (!gaps || meter_numbered)) {
    a.fit = energy::fit_meter_clock(receive, sequence, nominal_ns);
    std::string how = "fitted";
    // A meter's clock is off by parts per million, not per cent: a slope that far from the
    // nominal interval comes from bursty arrival (reports buffered before the port was opened,
    // USB or Bluetooth batching). Then keep the nominal interval and place the origin on the
    // least-delayed report, which bounds every production time (delays are never negative).
    if (nominal_ns > 0 && std::abs(a.fit->interval_ns / nominal_ns - 1.0) > 0.01) {
      a.fit->interval_ns = nominal_ns;
      a.fit->origin_ns = static_cast<double>(receive[0]) - nominal_ns * static_cast<double>(sequence[0]);
      for (std::size_t i = 0; i < readings.size(); ++i) {
        a.fit->origin_ns = std::min(a.fit->origin_ns, static_cast<double>(receive[i]) - nominal_ns * static_cast<double>(sequence[i]));
      }
      a.fit->max_delay_ns = 0;
      for (std::size_t i = 0; i < readings.size(); ++i) {
        a.fit->max_delay_ns = std::max(a.fit->max_delay_ns, static_cast<double>(receive[i] - a.fit->production_time_ns(sequence[i])));
      }
      how = "placed at the nominal interval (arrival too bursty to fit a slope)";
    }
    for (std::size_t i = 0; i < readings.size(); ++i) times[i] = a.fit->production_time_ns(sequence[i]);
    a.clock = fmt::format("meter clock {} over {} reports (interval {:.3f} ms, receive delay up to {:.1f} ms removed)", how,
                          readings.size(), a.fit->interval_ns / 1e6, a.fit->max_delay_ns / 1e6);
    for (std::size_t i = 1; i < times.size(); ++i) times[i] = std::max(times[i], times[i - 1] + 1);
  } else {
    a.clock = readings.size() < 2 ? "host receive times (too few reports to fit)"
                                  : "host receive times (reports were lost: no clock fit)";
  }
  energy::PowerTrace raw({{"meter", energy::RailRole::kBoardInput}});
  for (std::size_t i = 0; i < readings.size(); ++i) raw.append(times[i], {readings[i].power_mw});

  // Onboard total per sample against the meter's power.
  const energy::TotalDefinition total = energy::total_definition(onboard);
  std::vector<std::int64_t> ref_t, meter_t;
  std::vector<double> ref_v, meter_v;
  if (total.source != energy::TotalDefinition::Source::kNone) {
    for (std::size_t i = 0; i < onboard.size(); ++i) {
      double sum = 0;
      bool valid = true;
      for (std::size_t c : total.channels) {
        const auto p = onboard.power_mw(c, i);
        if (!p) valid = false;
        else sum += *p;
      }
      if (!valid) continue;
      ref_t.push_back(onboard.time_ns(i));
      ref_v.push_back(sum);
    }
  }
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (const auto p = raw.power_mw(0, i)) {
      meter_t.push_back(raw.time_ns(i));
      meter_v.push_back(*p);
    }
  }
  if (ref_t.size() < 2) {
    a.offset_note = "no onboard power to align with";
  } else if (meter_t.size() < 2) {
    a.offset_note = "too few meter readings";
  } else {
    const std::int64_t span = ref_t.back() - ref_t.front();
    // Meters lag by up to a few intervals (Watts Up? 2-3 s); search no further than a quarter of
    // the span so that half of it always overlaps.
    const std::int64_t max_lag = std::min<std::int64_t>(std::max<std::int64_t>(3 * static_cast<std::int64_t>(nominal_ns), 2'000'000'000), span / 4);
    const std::int64_t step = std::max<std::int64_t>(1'000'000, span / 2000);
    a.offset = energy::estimate_offset_xcorr(ref_t, ref_v, meter_t, meter_v, max_lag, step);
    if (!a.offset) {
      a.offset_note = "not estimated (a flat signal: nothing to correlate)";
    } else if (a.offset->correlation >= kMinAlignmentCorrelation) {
      a.offset_applied = true;
      a.offset_note = fmt::format("{:+.3f} s applied (correlation {:.2f})", static_cast<double>(a.offset->offset_ns) / 1e9,
                                  a.offset->correlation);
    } else {
      a.offset_note = fmt::format("{:+.3f} s not applied (correlation {:.2f} < {:.1f}: no power step both saw)",
                                  static_cast<double>(a.offset->offset_ns) / 1e9, a.offset->correlation,
                                  kMinAlignmentCorrelation);
    }
  }
  a.trace = a.offset_applied ? raw.shifted(a.offset->offset_ns) : raw;
  return a;
}

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

  const jetchar::sysfs::Root& root = *board.root;
  const TelemetrySources sources = discover_telemetry_sources(root);
  TelemetrySampler sampler(root, sources, SamplerOptions{o.rate_hz, 1 << 14});
  const TelemetryLayout& layout = sampler.layout();
  auto meter = open_meter(o);
  // The meter is opened before the sample log is created: a meter that cannot be opened ends the
  // command before it has written anything.
  if (meter) jetchar::cli::start_meter(*meter, o.meter.substr(o.meter.find(':') + 1));
  SampleLog log(o, layout, meter != nullptr);

  // From here on a signal ends the monitor with its summary (and status 130), not mid-sample.
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);

  std::fprintf(stderr, "jetchar monitor: %s, %.3g Hz, %zu fields\n", board_label.c_str(), o.rate_hz, layout.fields.size());
  for (const auto& ina : sampler.power_monitor_settings()) {
    std::fprintf(stderr, "  power monitor %s (%s): samples %s, update_interval %s ms, running_mode %s\n", ina.device.c_str(),
                 ina.driver.c_str(), ina.samples ? std::to_string(*ina.samples).c_str() : "-",
                 ina.update_interval_ms ? std::to_string(*ina.update_interval_ms).c_str() : "-",
                 ina.running_mode ? std::to_string(*ina.running_mode).c_str() : "-");
  }
  for (const auto& note : sampler.notes()) std::fprintf(stderr, "  absent: %s\n", note.c_str());

  energy::PowerTrace trace(layout.power_channels());
  energy::PowerTrace meter_trace({{"meter", energy::RailRole::kBoardInput}});
  const double duration_s = o.baseload_s > 0 ? o.baseload_s : o.duration_s;
  const std::int64_t t0 = monotonic_ns();
  const std::int64_t end = duration_s > 0 ? t0 + static_cast<std::int64_t>(duration_s * 1e9) : INT64_MAX;
  sampler.start();

  std::vector<TelemetrySample> samples;
  std::vector<meters::MeterReading> readings, all_readings;
  std::optional<double> last_meter_mw;
  std::int64_t next_print = t0 + 1'000'000'000;
  const LineFormatter formatter(layout);
  const auto display_period_ns = std::max<std::int64_t>(static_cast<std::int64_t>(1e9 / o.rate_hz), 200'000'000);
  auto pump = [&](bool final) {
    samples.clear();
    sampler.drain(samples);
    for (const auto& s : samples) {
      append_power(layout, s, trace);
      log.sample(s, t0);
    }
    if (meter) {
      readings.clear();
      meter->drain(readings);
      for (const auto& r : readings) {
        all_readings.push_back(r);
        meter_trace.append(r.host_time_ns, {r.power_mw});
        if (r.power_mw) last_meter_mw = r.power_mw;
        log.meter(r, t0);
      }
    }
    if (samples.empty() || o.baseload_s > 0) return;
    const std::string line = formatter.format(samples.back(), last_meter_mw);
    if (tty) {
      std::printf("\r\033[K%s", line.c_str());
      if (final) std::printf("\n");
      std::fflush(stdout);
    } else if (!log.enabled() && (samples.back().time_ns >= next_print || final)) {
      std::printf("%.3f %s\n", static_cast<double>(samples.back().time_ns - t0) / 1e9, line.c_str());
      std::fflush(stdout);
      next_print += 1'000'000'000;
    }
  };
  while (g_signal.load() == 0 && monotonic_ns() < end) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(display_period_ns, std::max<std::int64_t>(end - monotonic_ns(), 0))));
    pump(false);
  }
  sampler.stop();
  if (meter) meter->stop();
  pump(true);
  if (board.simulated()) board.sim->stop_refresh();

  const auto stats = sampler.stats();
  const std::int64_t t_end = trace.empty() ? t0 : trace.time_ns(trace.size() - 1);
  const std::int64_t t_begin = trace.empty() ? t0 : trace.time_ns(0);
  if (o.baseload_s > 0) {
    if (trace.size() < 2) throw std::runtime_error("baseload: fewer than two samples were taken; use a longer --baseload");
    print_baseload(energy::measure_baseload(trace, t_begin, t_end), "idle power (baseload), onboard rails");
    if (meter_trace.size() >= 2) {
      print_baseload(energy::measure_baseload(meter_trace, meter_trace.time_ns(0), meter_trace.time_ns(meter_trace.size() - 1),
                                              meter->protocol().reports_averages() ? energy::Integration::kBackwardRectangle
                                                                                    : energy::Integration::kTrapezoid),
                     "idle power (baseload), external meter");
    }
  } else if (trace.size() >= 2 && trace.channel_count() == 0) {
    std::fprintf(stderr, "energy: no power rails or energy counters on this board\n");
  } else if (trace.size() >= 2) {
    const auto e = energy::window_energy(trace, "monitor", t_begin, t_end);
    std::fprintf(stderr, "energy over %.3f s:", static_cast<double>(t_end - t_begin) / 1e9);
    for (const auto& rail : e.rails) {
      if (rail.energy.energy_mj) std::fprintf(stderr, " %s %.3f J", rail.name.c_str(), *rail.energy.energy_mj / 1000);
    }
    if (e.total_energy_mj) std::fprintf(stderr, "; total %.3f J (%s)", *e.total_energy_mj / 1000, e.total.label.c_str());
    std::fprintf(stderr, "\n");
  }
  if (meter && o.baseload_s == 0) {
    const auto method = meter->protocol().reports_averages() ? energy::Integration::kBackwardRectangle
                                                             : energy::Integration::kTrapezoid;
    const MeterAlignment aligned = align_meter(all_readings, !meter->gaps().empty(), meter->protocol(), trace);
    const auto e = aligned.trace.size() >= 1 && t_end > t_begin
                       ? energy::integrate(aligned.trace, 0, t_begin, t_end, method)
                       : energy::ChannelEnergy{};
    const double window_s = static_cast<double>(t_end - t_begin) / 1e9;
    if (e.energy_mj) {
      std::fprintf(stderr, "meter energy: %.3f J over the onboard window (%.3f s%s)\n", *e.energy_mj / 1000, window_s,
                   e.complete ? "" : fmt::format(", meter covers {:.3f} s of it", static_cast<double>(e.covered_ns) / 1e9).c_str());
    } else {
      std::fprintf(stderr, "meter energy: - (no meter readings inside the onboard window)\n");
    }
    std::fprintf(stderr, "  alignment: %s; offset vs onboard total: %s\n", aligned.clock.c_str(), aligned.offset_note.c_str());
    log.summary(t_begin, t_end, trace, e, aligned.fit, aligned.offset, aligned.offset_applied, aligned.offset_note,
                &aligned.trace);
  } else if (o.baseload_s == 0 && trace.size() >= 2) {
    log.summary(t_begin, t_end, trace, std::nullopt, std::nullopt, std::nullopt, false, "");
  }
  if (meter) {
    const auto status = meter->status();
    std::fprintf(stderr, "meter %s: %llu readings, %zu gaps, %llu bad frames%s%s\n", meter->protocol().name().data(),
                 static_cast<unsigned long long>(status.readings), meter->gaps().size(),
                 static_cast<unsigned long long>(status.protocol.bad_frames),
                 status.last_error.empty() ? "" : ", last error: ", status.last_error.c_str());
  }
  const double achieved = stats.elapsed_ns > 0 ? static_cast<double>(stats.samples) * 1e9 / static_cast<double>(stats.elapsed_ns) : 0;
  std::fprintf(stderr,
               "sampler: %llu samples at %.2f Hz (asked %.3g), %llu missed deadlines, %llu dropped; cost %.1f us CPU "
               "per sample, %.3f %% of one core\n",
               static_cast<unsigned long long>(stats.samples), achieved, o.rate_hz,
               static_cast<unsigned long long>(stats.missed_deadlines), static_cast<unsigned long long>(stats.dropped),
               stats.cpu_ns_per_sample() / 1e3,
               100.0 * stats.cpu_fraction());
  if (const int signal = g_signal.load(); signal != 0) {
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
                  "window is reported, on the onboard time base: report times fitted to the meter's interval, and an "
                  "offset from cross-correlation with the onboard total, applied when the correlation is >= 0.8");
  cmd->add_option("--meter-interval", o->meter_interval_ms,
                  "Meter interval in ms (0 = the protocol's default)")
      ->check(jetchar::cli::at_least(0, "milliseconds, 0 = the protocol's default"));
  cmd->add_option("--duration", o->duration_s, "Stop after this many seconds (default: until Ctrl-C)")
      ->check(jetchar::cli::at_least(0, "seconds, 0 = until Ctrl-C"));
  auto* csv = cmd->add_option("--csv", o->csv, "Write every sample (and meter reading) to this CSV file");
  auto* jsonl = cmd->add_option("--jsonl", o->jsonl, "Write every sample (and meter reading) as JSON lines, closed by a summary record "
                               "(window in CLOCK_MONOTONIC ns, energy per rail, total, the meter's aligned energy)");
  csv->excludes(jsonl);
  cmd->add_option("--board", o->board, "auto, host, jetson, or sim:<fixture> (a simulated board)")->capture_default_str();
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
