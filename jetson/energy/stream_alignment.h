// Putting an external meter's stream on the onboard monotonic time base.
//
// A meter reports at its own fixed interval, but the host receives each report after a variable
// delay (USB-serial buffering, Bluetooth, the meter's own reply latency), and the meter's clock
// drifts against ours. Two steps: (1) reconstruct when each report was produced from the host
// receive timestamps and the meter's sequence (fit_meter_clock); (2) find the remaining constant
// offset against the onboard trace, from a deliberate power step seen by both
// (estimate_offset_xcorr) or from marker edges seen by both (offset_from_marker_edges).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace jetchar::jetson::energy {

struct MeterClockFit {
  /// Actual report interval in host nanoseconds (the meter's nominal interval times its drift).
  double interval_ns = 0.0;
  /// Host time at which sequence number 0 was produced.
  double origin_ns = 0.0;
  /// Largest receive delay removed (receive − fitted production time).
  double max_delay_ns = 0.0;

  std::int64_t production_time_ns(std::uint64_t sequence) const {
    return static_cast<std::int64_t>(origin_ns + interval_ns * static_cast<double>(sequence));
  }
};

/// Least-squares line through (sequence, receive time), then lowered to the earliest arrival:
/// delays are never negative, so the least-delayed report bounds the production time. With fewer
/// than two reports `nominal_interval_ns` is used as the slope. Throws std::invalid_argument on
/// empty or mismatched input or a sequence that does not increase.
MeterClockFit fit_meter_clock(std::span<const std::int64_t> receive_ns, std::span<const std::uint64_t> sequence,
                              std::optional<double> nominal_interval_ns = std::nullopt);

struct OffsetEstimate {
  /// Add to the other stream's timestamps to line it up with the reference.
  std::int64_t offset_ns = 0;
  /// Pearson correlation at that offset (−1..1).
  double correlation = 0.0;
};

/// Offset maximising the correlation of the two power series, searched in steps of `step_ns`
/// within ±max_lag_ns; both series are linearly interpolated onto the reference's grid. Needs
/// overlap of at least half the reference span at the chosen lag. nullopt when no lag has enough
/// overlap or a series is flat (nothing to correlate).
std::optional<OffsetEstimate> estimate_offset_xcorr(std::span<const std::int64_t> reference_t_ns,
                                                    std::span<const double> reference_value,
                                                    std::span<const std::int64_t> other_t_ns,
                                                    std::span<const double> other_value, std::int64_t max_lag_ns,
                                                    std::int64_t step_ns);

/// Median of reference_edge[k] − other_edge[k] over the edges both saw (paired in order).
/// Throws std::invalid_argument when either list is empty.
std::int64_t offset_from_marker_edges(std::span<const std::int64_t> reference_edges_ns,
                                      std::span<const std::int64_t> other_edges_ns);

}  // namespace jetchar::jetson::energy
