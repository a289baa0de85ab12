// The one policy that puts an external meter's readings on the onboard CLOCK_MONOTONIC time base.
// `jetchar monitor` and the sweep executor both go through it (via MeterSession), so a stream gives
// the same joules whichever command recorded it.
//
// It combines what the monitor and the sweep each did alone, because each step fixes a different
// error and none of them hurts where the other applies:
//  1. Readings without power are dropped, and so is a leading burst of stale reports: reports the
//     meter sent before the port was opened wait in the serial buffer and arrive together, so their
//     receive times say nothing about when they were produced (measured: 240 ms early on a pty).
//  2. Report times come from a clock fit (energy::fit_meter_clock: least squares of receive time on
//     sequence, lowered to the least-delayed report), one fit per stretch. A stretch ends where the
//     sequence does not increase (a meter restarted after a reconnect) and, when the sequence is the
//     reader's own count, at every gap the reader recorded (it cannot know how many reports a gap
//     lost). A meter that numbers its own reports (the INA logger's `seq`, recognised by its `t_us`
//     clock) keeps one fit across gaps: its numbers count the intervals a gap lost.
//  3. A meter's clock is off by parts per million, not per cent: a fitted interval more than 1 %
//     from the nominal one comes from bursty arrival (USB or Bluetooth batching), so that stretch
//     keeps the nominal interval with its origin on the least-delayed report.
//  4. The remaining constant offset comes from the best evidence there is: the GPIO marker edges
//     the run drove and the meter echoed (median difference); else the cross-correlation of the
//     meter's power with the onboard total, applied only when the correlation is at least
//     kMinOffsetCorrelation (a power step both saw) and only against measured onboard power — a
//     simulated board's power is modelled and has nothing in common with a real meter's; else none.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "jetson/energy/power_trace.h"
#include "jetson/energy/stream_alignment.h"
#include "jetson/meters/meter_reading.h"

namespace jetchar::jetson::measurement {

/// Correlation needed before an offset estimated by cross-correlation is applied.
inline constexpr double kMinOffsetCorrelation = 0.8;
/// A fitted interval further than this fraction from the nominal one is bursty arrival, not drift.
inline constexpr double kMaxIntervalDeviation = 0.01;

enum class OffsetSource { kNone, kMarkerEdges, kCorrelation };

struct MeterAlignment {
  /// One channel named as the meter, on the onboard time base (offset applied), strictly increasing.
  energy::PowerTrace trace;
  /// How report times were obtained: "clock fit", "clock fit (nominal interval)", "receive time".
  std::string clock = "receive time";
  /// The fit of the longest fitted stretch (what a reader checks the meter's interval against).
  std::optional<energy::MeterClockFit> fit;
  std::size_t stretches = 0;      ///< clock-fit stretches (1 for an unbroken stream)
  std::size_t stale_dropped = 0;  ///< leading buffered reports dropped
  OffsetSource offset_source = OffsetSource::kNone;
  std::int64_t offset_ns = 0;  ///< applied (0 when none)
  /// The cross-correlation estimate when one was made (applied only when accepted).
  std::optional<energy::OffsetEstimate> correlation;
  std::string offset_note;  ///< one line on the offset: what was applied, or why none

  /// "clock fit", "clock fit + marker edges", "clock fit + correlation", ...
  std::string describe() const;
};

struct MeterAlignmentInput {
  std::string name;                        ///< channel name, e.g. "ina:/dev/ttyACM0"
  std::int64_t nominal_interval_ns = 0;    ///< the protocol's interval
  std::span<const meters::MeterGap> gaps;  ///< as the reader recorded them (host time)
  /// Times the run drove its GPIO marker line (onboard clock); empty when it has none.
  std::span<const std::int64_t> marker_edges_ns;
  /// The onboard trace to cross-correlate with; null when there is none or it is modelled.
  const energy::PowerTrace* onboard = nullptr;
  /// Why `onboard` is null, for the offset note ("the onboard power is modelled").
  std::string no_onboard_reason = "no onboard power to align with";
};

/// Applies the policy above to one meter's readings (in arrival order).
MeterAlignment align_meter(std::vector<meters::MeterReading> readings, const MeterAlignmentInput& input);

}  // namespace jetchar::jetson::measurement
