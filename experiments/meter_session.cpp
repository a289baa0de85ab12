#include "experiments/meter_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "jetson/energy/energy_integrator.h"
#include "jetson/energy/power_trace.h"
#include "jetson/energy/stream_alignment.h"
#include "jetson/energy/window_energy.h"
#include "jetson/meters/meter_protocol.h"
#include "jetson/meters/serial_meter_reader.h"

namespace jetchar::experiments {
namespace {

namespace energy = jetson::energy;
namespace meters = jetson::meters;

std::int64_t overlap_ns(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
  return std::max<std::int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

}  // namespace

struct MeterSession::Meter {
  std::string name;
  std::unique_ptr<meters::SerialMeterReader> reader;
  std::int64_t interval_ns = 0;
  bool averages = false;
  // After stop():
  energy::PowerTrace trace;
  std::vector<meters::MeterGap> gaps;  // host time, including one still open at stop
  meters::SerialReaderStatus status;
  std::optional<std::int64_t> offset_ns;
  std::string alignment = "none";
};

MeterSession::MeterSession(const google::protobuf::RepeatedPtrField<proto::MeterSpec>& specs) {
  for (int i = 0; i < specs.size(); ++i) {
    const auto& spec = specs.Get(i);
    auto meter = std::make_unique<Meter>();
    meter->name = spec.protocol() + ":" + spec.device();
    std::unique_ptr<meters::MeterProtocol> protocol;
    try {
      protocol = meters::make_meter_protocol(spec.protocol());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("measurement.meters[{}].protocol: {}", i, e.what()));
    }
    meter->interval_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(protocol->expected_interval()).count();
    meter->averages = protocol->reports_averages();
    meters::SerialReaderOptions options;
    options.device = spec.device();
    meter->reader = std::make_unique<meters::SerialMeterReader>(std::move(protocol), options);
    meters_.push_back(std::move(meter));
  }
}

MeterSession::~MeterSession() {
  for (auto& meter : meters_) meter->reader->stop();
}

bool MeterSession::empty() const { return meters_.empty(); }

void MeterSession::start() {
  for (auto& meter : meters_) meter->reader->start();
  // The first epoch must be covered from its start: wait for two readings per meter (an
  // averaging meter's first report covers the time before it only once a second one follows).
  // The first reports may be a burst of stale ones from the serial buffer (dropped in stop()),
  // so the two are counted after the first arrival.
  for (auto& meter : meters_) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::nanoseconds(2 * meter->interval_ns) + std::chrono::seconds(2));
    if (!meter->reader->wait_for_readings(1, wait)) continue;
    std::this_thread::sleep_for(std::chrono::nanoseconds(meter->interval_ns / 4));
    (void)meter->reader->wait_for_readings(meter->reader->status().readings + 2, wait);
  }
}

void MeterSession::stop(std::span<const std::int64_t> marker_edges_ns) {
  const std::int64_t stop_ns = energy::WindowRecorder::now_ns();
  // Two more reports after the run's end, so that the last epoch is covered to its end even
  // when the clock fit places the first of them a little earlier than it arrived. A meter that
  // is gone costs the timeout once per run.
  for (auto& meter : meters_) {
    const auto status = meter->reader->status();
    if (status.readings == 0) continue;
    const auto wait = std::chrono::nanoseconds(3 * meter->interval_ns) + std::chrono::milliseconds(500);
    (void)meter->reader->wait_for_readings(status.readings + 2,
                                           std::chrono::duration_cast<std::chrono::milliseconds>(wait));
  }
  for (auto& meter : meters_) {
    meter->reader->stop();
    std::vector<meters::MeterReading> readings;
    meter->reader->drain(readings);
    meter->gaps = meter->reader->gaps();
    meter->status = meter->reader->status();
    std::erase_if(readings, [](const meters::MeterReading& r) { return !r.power_mw; });
    // Reports the meter sent before the reader opened it wait in the serial buffer and arrive in
    // one burst: their receive times say nothing about when they were produced and would drag
    // the clock fit (measured: 240 ms early on a pty). Leading reports that arrive much closer
    // together than the meter's interval are that burst, and are dropped.
    std::size_t stale = 0;
    while (stale + 1 < readings.size() &&
           readings[stale + 1].host_time_ns - readings[stale].host_time_ns < meter->interval_ns / 4) {
      ++stale;
    }
    if (stale > 0) readings.erase(readings.begin(), readings.begin() + static_cast<std::ptrdiff_t>(stale + 1));

    // A gap still open at the end (the meter went away and never came back) is recorded too.
    const std::int64_t last_ns = readings.empty() ? stop_ns : readings.back().host_time_ns;
    if (stop_ns - last_ns > 3 * meter->interval_ns + 100'000'000) {
      meter->gaps.push_back({last_ns, stop_ns,
                             meter->status.connected ? "silent until the end of the run"
                                                     : "disconnected: " + meter->status.last_error});
    }

    // Report times from the receive times, one clock fit per stretch between gaps (sequence
    // numbers may restart after a reconnect, and a gap breaks the sequence-to-time relation).
    std::vector<std::int64_t> times(readings.size());
    bool fitted = !readings.empty();
    for (std::size_t begin = 0; begin < readings.size();) {
      std::size_t end = begin + 1;
      while (end < readings.size()) {
        const bool split = std::any_of(meter->gaps.begin(), meter->gaps.end(), [&](const meters::MeterGap& g) {
          return g.end_ns <= readings[end].host_time_ns && g.end_ns > readings[end - 1].host_time_ns;
        });
        if (split || readings[end].sequence <= readings[end - 1].sequence) break;
        ++end;
      }
      std::vector<std::int64_t> receive;
      std::vector<std::uint64_t> sequence;
      for (std::size_t i = begin; i < end; ++i) {
        receive.push_back(readings[i].host_time_ns);
        sequence.push_back(readings[i].sequence);
      }
      try {
        const auto fit = energy::fit_meter_clock(receive, sequence, static_cast<double>(meter->interval_ns));
        for (std::size_t i = begin; i < end; ++i) times[i] = fit.production_time_ns(readings[i].sequence);
      } catch (const std::invalid_argument&) {
        fitted = false;
        for (std::size_t i = begin; i < end; ++i) times[i] = readings[i].host_time_ns;
      }
      begin = end;
    }
    meter->alignment = fitted ? "clock fit" : "receive time";

    // Marker edges the meter echoed (ina-line), against the edges the run drove.
    std::vector<std::int64_t> meter_edges;
    for (std::size_t i = 1; i < readings.size(); ++i) {
      if (readings[i].marker && readings[i - 1].marker && *readings[i].marker != *readings[i - 1].marker) {
        meter_edges.push_back(times[i]);
      }
    }
    std::int64_t offset = 0;
    if (!meter_edges.empty() && !marker_edges_ns.empty()) {
      offset = energy::offset_from_marker_edges(marker_edges_ns, meter_edges);
      meter->offset_ns = offset;
      meter->alignment += " + marker edges";
    }

    meter->trace = energy::PowerTrace({{meter->name, energy::RailRole::kBoardInput}});
    for (std::size_t i = 0; i < readings.size(); ++i) {
      const std::int64_t t = times[i] + offset;
      if (!meter->trace.empty() && t <= meter->trace.times_ns().back()) continue;
      meter->trace.append(t, {readings[i].power_mw});
    }
  }
}

std::vector<proto::MeterEnergy> MeterSession::energy(std::int64_t begin_ns, std::int64_t end_ns) const {
  std::vector<proto::MeterEnergy> out;
  for (const auto& meter : meters_) {
    proto::MeterEnergy e;
    e.set_meter(meter->name);
    std::int64_t gap = 0;
    const std::int64_t offset = meter->offset_ns.value_or(0);
    for (const auto& g : meter->gaps) gap += overlap_ns(g.begin_ns + offset, g.end_ns + offset, begin_ns, end_ns);
    e.set_gap_s(static_cast<double>(gap) / 1e9);
    if (!meter->trace.empty() && end_ns > begin_ns) {
      const auto channel = energy::integrate(meter->trace, 0, begin_ns, end_ns,
                                             meter->averages ? energy::Integration::kBackwardRectangle
                                                             : energy::Integration::kTrapezoid);
      e.set_readings(static_cast<std::uint32_t>(channel.samples_inside));
      // A window the meter did not see whole has no meter energy: a bridged gap would be a guess.
      if (channel.complete && gap == 0 && channel.energy_mj) {
        e.set_energy_j(*channel.energy_mj / 1000.0);
        e.set_average_power_w(*channel.energy_mj / (static_cast<double>(end_ns - begin_ns) / 1e6));
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<const energy::PowerTrace*> MeterSession::traces() const {
  std::vector<const energy::PowerTrace*> out;
  for (const auto& meter : meters_) out.push_back(&meter->trace);
  return out;
}

std::vector<proto::MeterSummary> MeterSession::summaries(std::int64_t begin_ns, std::int64_t end_ns) const {
  std::vector<proto::MeterSummary> out;
  for (const auto& meter : meters_) {
    proto::MeterSummary s;
    s.set_meter(meter->name);
    s.set_readings(meter->status.readings);
    std::int64_t gap = 0;
    std::uint32_t count = 0;
    for (const auto& g : meter->gaps) {
      const auto inside = overlap_ns(g.begin_ns, g.end_ns, begin_ns, end_ns);
      if (inside == 0) continue;
      ++count;
      gap += inside;
    }
    s.set_gap_count(count);
    s.set_gap_s(static_cast<double>(gap) / 1e9);
    s.set_reconnects(meter->status.opens > 0 ? meter->status.opens - 1 : 0);
    s.set_last_error(meter->status.last_error);
    if (meter->offset_ns) s.set_offset_s(static_cast<double>(*meter->offset_ns) / 1e9);
    s.set_alignment(meter->status.readings == 0 ? "none (no readings)" : meter->alignment);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace jetchar::experiments
