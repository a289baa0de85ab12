#include "jetson/measurement/monitored_span.h"

#include <algorithm>

#include "sysfs/monotonic_clock.h"

namespace jetchar::jetson::measurement {

using sysfs::monotonic_ns;

MonitoredSpan::MonitoredSpan(MeasurementSession& session, SampleHandler on_sample, ReadingHandler on_reading)
    : session_(session), on_reading_(std::move(on_reading)) {
  session_.onboard().set_sample_listener([this, on_sample = std::move(on_sample)](const TelemetrySample& s) {
    if (s.time_ns > last_sample_ns_.load()) return;
    on_sample(s);
  });
}

MonitoredSpan::~MonitoredSpan() { session_.onboard().stop(); }

void MonitoredSpan::start(double duration_s) {
  begin_ns_ = monotonic_ns();
  session_.start();
  end_ns_ = duration_s > 0 ? begin_ns_ + static_cast<std::int64_t>(duration_s * 1e9) : INT64_MAX;
  last_sample_ns_.store(end_ns_);  // a sample drained before end() is called may lie past the end
}

bool MonitoredSpan::running() const { return monotonic_ns() < end_ns_; }

std::chrono::milliseconds MonitoredSpan::next_wait(std::int64_t period_ns) const {
  const auto wait_ns = std::min<std::int64_t>(period_ns, std::max<std::int64_t>(end_ns_ - monotonic_ns(), 0));
  return std::chrono::ceil<std::chrono::milliseconds>(std::chrono::nanoseconds(wait_ns));
}

void MonitoredSpan::pump() {
  readings_.clear();
  session_.meters().drain(readings_);
  if (readings_.empty()) return;
  for (const auto& r : readings_.front()) on_reading_(r);
}

void MonitoredSpan::end() {
  end_ns_ = std::min(end_ns_, monotonic_ns());
  last_sample_ns_.store(end_ns_);
  pump();
}

void MonitoredSpan::stop() {
  session_.stop();
  pump();
}

}  // namespace jetchar::jetson::measurement
