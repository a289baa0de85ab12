// One telemetry sample as one line the way tegrastats prints it, with units: RAM, CPU load per
// core, cluster clocks, EMC, GPU (and NVML GPUs), temperatures, rails ('*' marks a repeated INA
// reading) and an external meter's latest power. `jetchar monitor` prints it.
#pragma once

#include <optional>
#include <string>

#include "jetson/telemetry/telemetry_sample.h"

namespace jetchar::jetson {

class TelemetryLineFormatter {
 public:
  /// `layout` must outlive the formatter.
  explicit TelemetryLineFormatter(const TelemetryLayout& layout) : layout_(layout) {}

  /// "-" stands for no figure (a core offline, no scheduler tick since the last sample), "?" for an
  /// absent clock or temperature.
  std::string format(const TelemetrySample& sample, std::optional<double> meter_mw) const;

 private:
  const TelemetryLayout& layout_;
};

}  // namespace jetchar::jetson
