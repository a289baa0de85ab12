// One report of an external power meter as the host received it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace jetchar::jetson::meters {

struct MeterReading {
  /// CLOCK_MONOTONIC when the last byte of the report arrived on the host.
  std::int64_t host_time_ns = 0;
  std::optional<double> power_mw;
  std::optional<double> voltage_mv;
  std::optional<double> current_ma;
  /// The meter's own counter where its protocol has one (INA line `seq`), else the reader's count.
  std::uint64_t sequence = 0;
  /// The meter's clock where its protocol reports one (INA line `t_us`).
  std::optional<std::int64_t> device_time_us;
  /// Marker input echoed by the meter (INA line), for GPIO phase alignment.
  std::optional<bool> marker;
  /// True when the value is the average since the previous report (Watts Up?, Yokogawa update
  /// period): integrate such readings with the backward rectangle.
  bool is_average = false;
};

/// A stretch of time with no usable data, and why.
struct MeterGap {
  std::int64_t begin_ns = 0;  ///< host time of the last good reading before the gap
  std::int64_t end_ns = 0;    ///< host time of the first good reading after it
  std::string reason;         ///< "disconnected: ...", "silent for 0.6 s", "bad frame", ...
};

/// Counters a protocol keeps while parsing.
struct ProtocolStats {
  std::uint64_t frames = 0;         ///< good records
  std::uint64_t bad_frames = 0;     ///< records that failed validation
  std::uint64_t garbage_bytes = 0;  ///< bytes skipped while resynchronising
};

}  // namespace jetchar::jetson::meters
