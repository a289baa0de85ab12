#include "jetson/measurement/measurement_session.h"

namespace jetchar::jetson::measurement {

MeasurementSession::MeasurementSession(const sysfs::Root& root, MeasurementOptions options)
    : options_(std::move(options)), onboard_(root, options_.sample_rate_hz), meters_(options_.meters) {}

MeasurementSession::~MeasurementSession() { onboard_.stop(); }

void MeasurementSession::set_marker(PhaseMarker& marker, std::set<energy::WindowKind> kinds) {
  marker_ = &marker;
  onboard_.windows().add_observer(marker_observer(marker, std::move(kinds)));
}

void MeasurementSession::start_meters() {
  if (meters_started_) return;
  meters_started_ = true;
  meters_.start(options_.meter_open);
}

void MeasurementSession::start() {
  if (started_) return;
  start_meters();
  started_ = true;
  onboard_.start();
}

void MeasurementSession::stop() {
  if (!started_) return;
  started_ = false;
  onboard_.stop();
  if (meters_.empty()) return;
  const std::vector<std::int64_t> edges = marker_ ? marker_->edge_times_ns() : std::vector<std::int64_t>{};
  AlignmentContext context;
  context.marker_edges_ns = edges;
  const bool measured = !options_.onboard_modelled && onboard_.has_power();
  const energy::PowerTrace trace = measured ? onboard_.trace() : energy::PowerTrace{};
  if (measured) context.onboard = &trace;
  context.no_onboard_reason =
      options_.onboard_modelled ? "the onboard power is modelled (simulated board)" : "no onboard power to align with";
  meters_.stop(context);
}

std::optional<std::pair<std::int64_t, std::int64_t>> MeasurementSession::sampled_span() {
  const energy::PowerTrace trace = onboard_.trace();
  if (trace.size() < 2) return std::nullopt;
  return std::pair{trace.time_ns(0), trace.time_ns(trace.size() - 1)};
}

SessionEnergy MeasurementSession::energy(std::int64_t begin_ns, std::int64_t end_ns, const energy::Baseload* baseload) {
  SessionEnergy e;
  e.begin_ns = begin_ns;
  e.end_ns = end_ns;
  if (onboard_.has_power() && end_ns > begin_ns) {
    energy::Window window;
    window.name = "measurement";
    window.kind = energy::WindowKind::kOther;
    window.begin_ns = begin_ns;
    window.end_ns = end_ns;
    e.onboard = onboard_.energy(window, baseload);
  }
  e.meters = meters_.energy(begin_ns, end_ns);
  return e;
}

}  // namespace jetchar::jetson::measurement
