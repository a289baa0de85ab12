#include "jetson/measurement/meter_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "jetson/energy/measurement_windows.h"
#include "jetson/meters/meter_open.h"

namespace jetchar::jetson::measurement {
namespace {

std::int64_t overlap_ns(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
  return std::max<std::int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

}  // namespace

MeterSpec parse_meter_spec(std::string_view text, std::string_view origin) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    throw std::invalid_argument(fmt::format("{} '{}' is not PROTOCOL:DEVICE (e.g. wattsup:/dev/ttyUSB0; protocols: {})",
                                            origin, text, fmt::join(meters::kMeterProtocolNames, ", ")));
  }
  MeterSpec spec;
  spec.protocol = std::string(text.substr(0, colon));
  spec.device = std::string(text.substr(colon + 1));
  spec.origin = std::string(origin);
  return spec;
}

struct MeterSession::Meter {
  MeterSpec spec;
  std::unique_ptr<meters::SerialMeterReader> reader;
  std::int64_t interval_ns = 0;
  std::vector<meters::MeterReading> readings;  // everything drained so far, in arrival order
  std::size_t handed_out = 0;                  // readings[0, handed_out) went out through drain()
  // After stop():
  std::vector<meters::MeterGap> gaps;  // host time, including one still open at stop
  meters::SerialReaderStatus status;
  MeterAlignment alignment;
  bool stopped = false;
};

MeterSession::MeterSession(std::vector<MeterSpec> specs) {
  for (auto& spec : specs) {
    auto meter = std::make_unique<Meter>();
    meters::MeterOptions options;
    options.interval = spec.interval;
    std::unique_ptr<meters::MeterProtocol> protocol;
    try {
      protocol = meters::make_meter_protocol(spec.protocol, options);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", spec.origin, e.what()));
    }
    meter->interval_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(protocol->expected_interval()).count();
    meters::SerialReaderOptions reader_options;
    reader_options.device = spec.device;
    meter->reader = std::make_unique<meters::SerialMeterReader>(std::move(protocol), reader_options);
    meter->alignment.trace = energy::PowerTrace({{spec.name(), energy::RailRole::kBoardInput}});
    meter->spec = std::move(spec);
    meters_.push_back(std::move(meter));
  }
}

MeterSession::~MeterSession() {
  for (auto& meter : meters_) meter->reader->stop();
}

void MeterSession::start(Open open) {
  for (auto& meter : meters_) {
    if (open == Open::kRequired) meters::start_and_await_open(*meter->reader, meter->spec.device);
    else meter->reader->start();
  }
  // The first window must be covered from its start: wait for two readings per meter. The first
  // reports may be a burst of stale ones from the serial buffer (dropped by the alignment), so
  // the two are counted after the first arrival.
  for (auto& meter : meters_) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::nanoseconds(2 * meter->interval_ns) + std::chrono::seconds(2));
    if (!meter->reader->wait_for_readings(1, wait)) continue;
    std::this_thread::sleep_for(std::chrono::nanoseconds(meter->interval_ns / 4));
    (void)meter->reader->wait_for_readings(meter->reader->status().readings + 2, wait);
  }
}

void MeterSession::drain(std::vector<std::vector<meters::MeterReading>>& out) {
  out.resize(meters_.size());
  for (std::size_t i = 0; i < meters_.size(); ++i) {
    auto& meter = *meters_[i];
    if (!meter.stopped) meter.reader->drain(meter.readings);
    out[i].insert(out[i].end(), meter.readings.begin() + static_cast<std::ptrdiff_t>(meter.handed_out),
                  meter.readings.end());
    meter.handed_out = meter.readings.size();
  }
}

void MeterSession::stop(const AlignmentContext& context) {
  const std::int64_t stop_ns = energy::WindowRecorder::now_ns();
  // Two more reports after the end, so that the last window is covered to its end even when the
  // clock fit places the first of them a little earlier than it arrived.
  for (auto& meter : meters_) {
    if (meter->stopped) continue;
    const auto status = meter->reader->status();
    if (status.readings == 0) continue;
    const auto wait = std::chrono::nanoseconds(3 * meter->interval_ns) + std::chrono::milliseconds(500);
    (void)meter->reader->wait_for_readings(status.readings + 2,
                                           std::chrono::duration_cast<std::chrono::milliseconds>(wait));
  }
  for (auto& meter : meters_) {
    if (meter->stopped) continue;
    meter->stopped = true;
    meter->reader->stop();
    meter->reader->drain(meter->readings);
    meter->gaps = meter->reader->gaps();
    meter->status = meter->reader->status();
    // A gap still open at the end (the meter went away and never came back) is recorded too.
    std::optional<std::int64_t> last_ns;
    for (const auto& r : meter->readings) {
      if (r.power_mw) last_ns = r.host_time_ns;
    }
    const std::int64_t last = last_ns.value_or(stop_ns);
    if (stop_ns - last > 3 * meter->interval_ns + 100'000'000) {
      meter->gaps.push_back(
          {last, stop_ns,
           meter->status.connected ? "silent until the end" : "disconnected: " + meter->status.last_error});
    }
    MeterAlignmentInput input;
    input.name = meter->spec.name();
    input.nominal_interval_ns = meter->interval_ns;
    input.gaps = meter->gaps;
    input.marker_edges_ns = context.marker_edges_ns;
    input.onboard = context.onboard;
    input.no_onboard_reason = context.no_onboard_reason;
    meter->alignment = align_meter(meter->readings, input);
  }
}

const MeterSpec& MeterSession::spec(std::size_t meter) const { return meters_.at(meter)->spec; }
const meters::MeterProtocol& MeterSession::protocol(std::size_t meter) const {
  return meters_.at(meter)->reader->protocol();
}
meters::SerialReaderStatus MeterSession::status(std::size_t meter) const {
  const auto& m = *meters_.at(meter);
  return m.stopped ? m.status : m.reader->status();
}
std::vector<meters::MeterGap> MeterSession::gaps(std::size_t meter) const {
  const auto& m = *meters_.at(meter);
  return m.stopped ? m.gaps : m.reader->gaps();
}
std::size_t MeterSession::received(std::size_t meter) const { return meters_.at(meter)->readings.size(); }
const MeterAlignment& MeterSession::alignment(std::size_t meter) const { return meters_.at(meter)->alignment; }

std::vector<MeterWindowEnergy> MeterSession::energy(std::int64_t begin_ns, std::int64_t end_ns) const {
  std::vector<MeterWindowEnergy> out;
  for (const auto& meter : meters_) {
    MeterWindowEnergy e;
    e.meter = meter->spec.name();
    // Gaps are in host time; the trace moved by the applied offset, and so do they.
    const std::int64_t offset = meter->alignment.offset_ns;
    for (const auto& g : meter->gaps) e.gap_ns += overlap_ns(g.begin_ns + offset, g.end_ns + offset, begin_ns, end_ns);
    const auto& trace = meter->alignment.trace;
    if (!trace.empty() && end_ns > begin_ns) {
      e.channel = energy::integrate(trace, 0, begin_ns, end_ns, meter->reader->protocol().integration());
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<MeterRunSummary> MeterSession::summaries(std::int64_t begin_ns, std::int64_t end_ns) const {
  std::vector<MeterRunSummary> out;
  for (const auto& meter : meters_) {
    MeterRunSummary s;
    s.meter = meter->spec.name();
    s.readings = meter->status.readings;
    for (const auto& g : meter->gaps) {
      const auto inside = overlap_ns(g.begin_ns, g.end_ns, begin_ns, end_ns);
      if (inside == 0) continue;
      ++s.gap_count;
      s.gap_ns += inside;
    }
    s.reconnects = meter->status.opens > 0 ? meter->status.opens - 1 : 0;
    s.last_error = meter->status.last_error;
    if (meter->alignment.offset_source != OffsetSource::kNone) s.offset_ns = meter->alignment.offset_ns;
    s.alignment = meter->status.readings == 0 ? "none (no readings)" : meter->alignment.describe();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace jetchar::jetson::measurement
