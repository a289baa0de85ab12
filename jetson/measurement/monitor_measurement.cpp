#include "jetson/measurement/monitor_measurement.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "jetson/measurement/session_summary.h"
#include "sysfs/monotonic_clock.h"

namespace jetchar::jetson::measurement {

namespace {

MonitorSettings with_default_rate(MonitorSettings settings) {
  if (settings.rate_hz == 0) settings.rate_hz = settings.tty ? 2.0 : 10.0;
  return settings;
}

MeasurementOptions session_options(const MonitorSettings& settings, const BoardHandle& board) {
  MeasurementOptions options;
  options.sample_rate_hz = settings.rate_hz;
  options.onboard_modelled = board.hooks->power_modelled();
  // A meter the monitor is given that cannot be opened ends the measurement before anything is
  // written; a sweep's meter is retried in the background instead.
  options.meter_open = MeterSession::Open::kRequired;
  if (settings.meter) options.meters.push_back(*settings.meter);
  return options;
}

std::string board_label(const BoardHandle& board) {
  return board.hooks->power_modelled() ? board.label + ", power figures are modelled" : board.label;
}

}  // namespace

MonitorMeasurement::MonitorMeasurement(BoardHandle& board, MonitorSettings settings)
    : board_label_(board_label(board)),
      settings_(with_default_rate(std::move(settings))),
      refresh_(*board.hooks, std::chrono::milliseconds(100)),
      session_(*board.root, session_options(settings_, board)),
      t0_ns_(sysfs::monotonic_ns()),
      // Quiet while a baseload is measured, and off a terminal when the samples go to a log.
      live_(session_.onboard().sampler().layout(), settings_.tty,
            settings_.baseload_s > 0 || (!settings_.tty && settings_.log), t0_ns_),
      span_(
          session_,
          [this](const TelemetrySample& s) {
            if (log_) log_->sample(s);
            live_.sample(s);
          },
          [this](const meters::MeterReading& r) {
            if (log_) log_->meter(r);
            live_.meter_power(r.power_mw);
          }) {
  // The meters open before the log is created: one that cannot be opened ends the measurement
  // before it has written anything.
  session_.start_meters();
  if (settings_.log) {
    log_ =
        std::make_unique<SampleLog>(settings_.log->path, settings_.log->format, session_.onboard().sampler().layout(),
                                    session_.meters().size(), settings_.log->origin);
    log_->set_origin_ns(t0_ns_);
  }
}

MonitorMeasurement::~MonitorMeasurement() = default;

std::chrono::nanoseconds MonitorMeasurement::display_period() const {
  return std::chrono::nanoseconds(
      std::max<std::int64_t>(static_cast<std::int64_t>(1e9 / settings_.rate_hz), 200'000'000));
}

void MonitorMeasurement::start() {
  span_.start(settings_.baseload_s > 0 ? settings_.baseload_s : settings_.duration_s);
}

std::string MonitorMeasurement::header_text() const {
  return sampler_header_text(board_label_, settings_.rate_hz, session_.onboard().sampler());
}

void MonitorMeasurement::run(const ControlInterrupt& interrupt, const std::function<void(const std::string&)>& show) {
  const auto show_live = [&](bool final) {
    if (const std::string text = live_.show(final); !text.empty()) show(text);
  };
  const std::int64_t period_ns = display_period().count();
  while (interrupt.signal() == 0 && span_.running()) {
    interrupt.wait(span_.next_wait(period_ns));
    span_.pump();
    show_live(false);
  }
  span_.end();
  show_live(false);
  span_.stop();
  show_live(true);
  refresh_.stop();
}

MonitorSummary MonitorMeasurement::summary() {
  MonitorSummary summary;
  const auto sampled = session_.sampled_span();
  if (settings_.baseload_s > 0) {
    if (!sampled) throw std::runtime_error("baseload: fewer than two samples were taken; use a longer --baseload");
    for (const auto& source : session_baseloads(session_, sampled->first, sampled->second))
      summary.results += baseload_text(source);
  } else if (sampled) {
    const auto e = session_.energy(sampled->first, sampled->second);
    summary.notes += energy_text(e, session_.meters());
    if (log_) log_->summary(e, session_.meters());
  }
  summary.notes += meter_status_text(session_.meters());
  summary.notes += sampler_cost_text(session_.onboard().stats(), settings_.rate_hz);
  return summary;
}

}  // namespace jetchar::jetson::measurement
