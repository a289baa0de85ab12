// Energy of one channel of a PowerTrace over a time window.
//
// Trapezoid (the default): samples are instantaneous points of a signal that is linear between
// them; the window edges fall between samples and are linearly interpolated, so a window that
// starts or ends mid-interval gets exactly its share. Backward rectangle: each sample is the
// average power since the previous sample (Watts Up? records, INA3221 averaging, Yokogawa
// update periods), so the value holds over (t[k-1], t[k]].
//
// Invalid samples are skipped: the signal is bridged from the last valid sample to the next, and
// the bridged time is reported as a gap so a caller can judge whether the figure is usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "jetson/energy/power_trace.h"

namespace jetchar::jetson::energy {

enum class Integration { kTrapezoid, kBackwardRectangle };

struct ChannelEnergy {
  /// Energy over the part of the window covered by valid samples; nullopt when none is.
  std::optional<double> energy_mj;
  /// Window time covered by the signal (valid samples or a bridge between them).
  std::int64_t covered_ns = 0;
  /// Covered time that was bridged over invalid samples.
  std::int64_t gap_ns = 0;
  /// Valid samples strictly inside the window.
  std::size_t samples_inside = 0;
  /// True when the signal covers the whole window.
  bool complete = false;
};

/// Energy of `channel` over [begin_ns, end_ns]. Throws std::invalid_argument when end < begin or
/// the channel index is out of range.
ChannelEnergy integrate(const PowerTrace& trace, std::size_t channel, std::int64_t begin_ns, std::int64_t end_ns,
                        Integration method = Integration::kTrapezoid);

}  // namespace jetchar::jetson::energy
