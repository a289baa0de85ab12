#include "jetson/measurement/meter_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "jetson/energy/baseload.h"

namespace jetchar::jetson::measurement {
namespace {

// Step 1: leading reports that arrive much closer together than the meter's interval are the
// stale burst from the serial buffer; the report right after the burst arrived with it too.
std::size_t drop_stale_burst(std::vector<meters::MeterReading>& readings, std::int64_t interval_ns) {
  std::size_t stale = 0;
  while (stale + 1 < readings.size() &&
         readings[stale + 1].host_time_ns - readings[stale].host_time_ns < interval_ns / 4) {
    ++stale;
  }
  if (stale == 0) return 0;
  readings.erase(readings.begin(), readings.begin() + static_cast<std::ptrdiff_t>(stale + 1));
  return stale + 1;
}

// Where the stretch that starts at `begin` ends (exclusive): at a sequence that does not increase,
// and at a recorded gap unless the meter numbers its own reports.
std::size_t stretch_end(const std::vector<meters::MeterReading>& readings, std::size_t begin,
                        std::span<const meters::MeterGap> gaps) {
  std::size_t end = begin + 1;
  while (end < readings.size()) {
    const auto& prev = readings[end - 1];
    const auto& next = readings[end];
    if (next.sequence <= prev.sequence) break;
    const bool meter_numbered = prev.device_time_us.has_value() && next.device_time_us.has_value();
    const bool gap_between = std::any_of(gaps.begin(), gaps.end(), [&](const meters::MeterGap& g) {
      return g.end_ns <= next.host_time_ns && g.end_ns > prev.host_time_ns;
    });
    if (gap_between && !meter_numbered) break;
    ++end;
  }
  return end;
}

// Steps 2 and 3 for one stretch: its fit, with the nominal interval where arrival was bursty.
energy::MeterClockFit fit_stretch(std::span<const std::int64_t> receive, std::span<const std::uint64_t> sequence,
                                  double nominal_ns, bool& nominal_used) {
  energy::MeterClockFit fit = energy::fit_meter_clock(receive, sequence, nominal_ns);
  nominal_used = false;
  if (nominal_ns > 0 && receive.size() >= 2 && std::abs(fit.interval_ns / nominal_ns - 1.0) > kMaxIntervalDeviation) {
    nominal_used = true;
    fit.interval_ns = nominal_ns;
    fit.origin_ns = static_cast<double>(receive[0]) - nominal_ns * static_cast<double>(sequence[0]);
    for (std::size_t i = 0; i < receive.size(); ++i) {
      fit.origin_ns =
          std::min(fit.origin_ns, static_cast<double>(receive[i]) - nominal_ns * static_cast<double>(sequence[i]));
    }
    fit.max_delay_ns = 0;
    for (std::size_t i = 0; i < receive.size(); ++i) {
      fit.max_delay_ns =
          std::max(fit.max_delay_ns, static_cast<double>(receive[i] - fit.production_time_ns(sequence[i])));
    }
  }
  return fit;
}

// The onboard total (board input, else module sum) per sample where every channel of it is valid.
void onboard_total(const energy::PowerTrace& onboard, std::vector<std::int64_t>& t, std::vector<double>& v) {
  const energy::TotalDefinition total = energy::total_definition(onboard);
  if (total.source == energy::TotalDefinition::Source::kNone) return;
  for (std::size_t i = 0; i < onboard.size(); ++i) {
    double sum = 0;
    bool valid = true;
    for (std::size_t c : total.channels) {
      const auto p = onboard.power_mw(c, i);
      if (!p) {
        valid = false;
        break;
      }
      sum += *p;
    }
    if (!valid) continue;
    t.push_back(onboard.time_ns(i));
    v.push_back(sum);
  }
}

// Step 4, second choice: cross-correlation against the onboard total.
void correlate(MeterAlignment& a, std::span<const std::int64_t> meter_t, std::span<const double> meter_v,
               const MeterAlignmentInput& input) {
  if (input.onboard == nullptr) {
    a.offset_note = "none (" + input.no_onboard_reason + ")";
    return;
  }
  std::vector<std::int64_t> ref_t;
  std::vector<double> ref_v;
  onboard_total(*input.onboard, ref_t, ref_v);
  if (ref_t.size() < 2) {
    a.offset_note = "none (no onboard power to align with)";
    return;
  }
  if (meter_t.size() < 2) {
    a.offset_note = "none (too few meter readings)";
    return;
  }
  const std::int64_t span = ref_t.back() - ref_t.front();
  // Meters lag by up to a few intervals (Watts Up? 2-3 s); search no further than a quarter of the
  // span so that half of it always overlaps.
  const std::int64_t max_lag =
      std::min<std::int64_t>(std::max<std::int64_t>(3 * input.nominal_interval_ns, 2'000'000'000), span / 4);
  const std::int64_t step = std::max<std::int64_t>(1'000'000, span / 2000);
  a.correlation = energy::estimate_offset_xcorr(ref_t, ref_v, meter_t, meter_v, max_lag, step);
  if (!a.correlation) {
    a.offset_note = "none (a flat signal: nothing to correlate)";
  } else if (a.correlation->correlation >= kMinOffsetCorrelation) {
    a.offset_source = OffsetSource::kCorrelation;
    a.offset_ns = a.correlation->offset_ns;
    a.offset_note = fmt::format("{:+.3f} s applied (correlation {:.2f} with the onboard total)",
                                static_cast<double>(a.offset_ns) / 1e9, a.correlation->correlation);
  } else {
    a.offset_note = fmt::format("none ({:+.3f} s estimated, correlation {:.2f} < {:.1f}: no power step both saw)",
                                static_cast<double>(a.correlation->offset_ns) / 1e9, a.correlation->correlation,
                                kMinOffsetCorrelation);
  }
}

}  // namespace

std::string MeterAlignment::describe() const {
  std::string text = clock;
  if (offset_source == OffsetSource::kMarkerEdges) text += " + marker edges";
  if (offset_source == OffsetSource::kCorrelation) text += " + correlation";
  return text;
}

MeterAlignment align_meter(std::vector<meters::MeterReading> readings, const MeterAlignmentInput& input) {
  if (input.nominal_interval_ns <= 0) {
    throw std::invalid_argument(
        fmt::format("meter {}: nominal interval {} ns; it must be positive", input.name, input.nominal_interval_ns));
  }
  MeterAlignment a;
  a.trace = energy::PowerTrace({{input.name, energy::RailRole::kBoardInput}});
  std::erase_if(readings, [](const meters::MeterReading& r) { return !r.power_mw; });
  a.stale_dropped = drop_stale_burst(readings, input.nominal_interval_ns);

  // Steps 2 and 3: report times, one fit per stretch.
  std::vector<std::int64_t> times(readings.size());
  bool any_nominal = false;
  std::size_t longest = 0;
  for (std::size_t begin = 0; begin < readings.size();) {
    const std::size_t end = stretch_end(readings, begin, input.gaps);
    std::vector<std::int64_t> receive;
    std::vector<std::uint64_t> sequence;
    for (std::size_t i = begin; i < end; ++i) {
      receive.push_back(readings[i].host_time_ns);
      sequence.push_back(readings[i].sequence);
    }
    bool nominal_used = false;
    const auto fit = fit_stretch(receive, sequence, static_cast<double>(input.nominal_interval_ns), nominal_used);
    any_nominal = any_nominal || nominal_used;
    for (std::size_t i = begin; i < end; ++i) times[i] = fit.production_time_ns(readings[i].sequence);
    if (end - begin > longest) {
      longest = end - begin;
      a.fit = fit;
    }
    ++a.stretches;
    begin = end;
  }
  // A lone report has no clock to fit: its time is its receive time either way.
  if (readings.size() >= 2) a.clock = any_nominal ? "clock fit (nominal interval)" : "clock fit";
  else a.fit.reset();

  // Step 4: the offset.
  std::vector<std::int64_t> meter_edges;
  for (std::size_t i = 1; i < readings.size(); ++i) {
    if (readings[i].marker && readings[i - 1].marker && *readings[i].marker != *readings[i - 1].marker) {
      meter_edges.push_back(times[i]);
    }
  }
  if (!meter_edges.empty() && !input.marker_edges_ns.empty()) {
    a.offset_source = OffsetSource::kMarkerEdges;
    a.offset_ns = energy::offset_from_marker_edges(input.marker_edges_ns, meter_edges);
    a.offset_note = fmt::format("{:+.3f} s applied (from {} marker edges)", static_cast<double>(a.offset_ns) / 1e9,
                                std::min(meter_edges.size(), input.marker_edges_ns.size()));
  } else {
    std::vector<double> values;
    for (const auto& r : readings) values.push_back(*r.power_mw);
    correlate(a, times, values, input);
  }

  for (std::size_t i = 0; i < readings.size(); ++i) {
    const std::int64_t t = times[i] + a.offset_ns;
    // A report whose fitted time does not follow the previous one (a restart after a reconnect
    // overlapping the stretch before it) cannot be placed: keep the earlier one.
    if (!a.trace.empty() && t <= a.trace.times_ns().back()) continue;
    a.trace.append(t, {readings[i].power_mw});
  }
  return a;
}

}  // namespace jetchar::jetson::measurement
