#include "jetson/telemetry/live_telemetry_line.h"

#include <fmt/format.h>
#include <fmt/printf.h>

namespace jetchar::jetson {

void LiveTelemetryLine::sample(const TelemetrySample& sample) {
  std::lock_guard lock(mutex_);
  latest_ = sample;
}

std::string LiveTelemetryLine::show(bool final) {
  std::optional<TelemetrySample> s;
  {
    std::lock_guard lock(mutex_);
    s = latest_;
  }
  if (quiet_ || !s) return "";
  if (s->time_ns == shown_ns_) return final && tty_ ? "\n" : "";  // ends the refreshing line
  // Off a terminal a sample passed over before its second came is not shown yet: the final call
  // still writes it.
  if (!tty_ && s->time_ns < next_line_ns_ && !final) return "";
  shown_ns_ = s->time_ns;
  const std::string line = formatter_.format(*s, meter_mw_);
  if (tty_) return fmt::format("\r\033[K{}{}", line, final ? "\n" : "");
  next_line_ns_ += 1'000'000'000;
  return fmt::sprintf("%.3f %s\n", static_cast<double>(s->time_ns - t0_ns_) / 1e9, line);
}

}  // namespace jetchar::jetson
