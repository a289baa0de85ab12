#include "jetson/energy/energy_integrator.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace jetchar::jetson::energy {
namespace {

constexpr double kNsPerS = 1e9;

// Integral of a linear segment (t0,p0)-(t1,p1) restricted to [a,b] (a,b inside [t0,t1]), in mW·ns.
double linear_piece(double t0, double p0, double t1, double p1, double a, double b) {
  if (b <= a) return 0.0;
  const double slope = (t1 > t0) ? (p1 - p0) / (t1 - t0) : 0.0;
  const double pa = p0 + slope * (a - t0);
  const double pb = p0 + slope * (b - t0);
  return 0.5 * (pa + pb) * (b - a);
}

ChannelEnergy integrate_trapezoid(const PowerTrace& trace, std::size_t channel, std::int64_t begin_ns,
                                  std::int64_t end_ns) {
  ChannelEnergy result;
  const auto& times = trace.times_ns();
  // Start from the last valid sample at or before the window start, so the first segment can be
  // interpolated at the edge.
  auto first = std::upper_bound(times.begin(), times.end(), begin_ns);
  std::size_t i = static_cast<std::size_t>(first - times.begin());
  std::optional<std::size_t> previous;
  for (std::size_t k = i; k-- > 0;) {
    if (trace.power_mw(channel, k)) {
      previous = k;
      break;
    }
  }
  double sum_mw_ns = 0.0;
  bool any = false;
  bool bridged = false;  // invalid samples were skipped since `previous`
  for (; i < trace.size(); ++i) {
    const auto p = trace.power_mw(channel, i);
    if (!p) {
      // Past the window end we keep looking for the next valid sample to interpolate the edge.
      if (previous) bridged = true;
      continue;
    }
    if (previous) {
      const double t0 = static_cast<double>(times[*previous]);
      const double t1 = static_cast<double>(times[i]);
      const double a = std::max(t0, static_cast<double>(begin_ns));
      const double b = std::min(t1, static_cast<double>(end_ns));
      if (b > a) {
        sum_mw_ns += linear_piece(t0, *trace.power_mw(channel, *previous), t1, *p, a, b);
        any = true;
        const auto span = static_cast<std::int64_t>(b - a);
        result.covered_ns += span;
        if (bridged) result.gap_ns += span;
      } else if (b == a && t0 <= static_cast<double>(begin_ns) && t1 >= static_cast<double>(end_ns)) {
        any = true;  // a zero-length window inside the signal: energy 0, fully covered
      }
    }
    if (times[i] > begin_ns && times[i] < end_ns) ++result.samples_inside;
    previous = i;
    bridged = false;
    if (times[i] >= end_ns) break;
  }
  if (any) result.energy_mj = sum_mw_ns / kNsPerS;
  result.complete = any && result.covered_ns == end_ns - begin_ns;
  return result;
}

ChannelEnergy integrate_rectangle(const PowerTrace& trace, std::size_t channel, std::int64_t begin_ns,
                                  std::int64_t end_ns) {
  ChannelEnergy result;
  const auto& times = trace.times_ns();
  // Sample k covers (t[k-1], t[k]]; the first sample whose interval reaches past begin is the
  // first with t[k] > begin.
  auto first = std::upper_bound(times.begin(), times.end(), begin_ns);
  std::size_t i = static_cast<std::size_t>(first - times.begin());
  double sum_mw_ns = 0.0;
  bool any = false;
  std::int64_t pending_gap_start = -1;  // start of intervals of invalid samples awaiting a valid one
  for (; i < trace.size(); ++i) {
    if (i == 0) continue;  // the first sample has no interval of its own
    const std::int64_t t0 = std::max(times[i - 1], begin_ns);
    const std::int64_t t1 = std::min(times[i], end_ns);
    const auto p = trace.power_mw(channel, i);
    if (!p) {
      if (pending_gap_start < 0) pending_gap_start = t0;
    } else {
      // An invalid stretch before this sample is held at this sample's value (its average is
      // the best estimate we have) and reported as a gap.
      const std::int64_t start = pending_gap_start >= 0 ? pending_gap_start : t0;
      if (t1 > start) {
        sum_mw_ns += *p * static_cast<double>(t1 - start);
        result.covered_ns += t1 - start;
        if (pending_gap_start >= 0) result.gap_ns += t0 - start;
        any = true;
      }
      pending_gap_start = -1;
      if (times[i] > begin_ns && times[i] < end_ns) ++result.samples_inside;
    }
    if (times[i] >= end_ns) break;
  }
  if (any) result.energy_mj = sum_mw_ns / kNsPerS;
  result.complete = any && result.covered_ns == end_ns - begin_ns;
  return result;
}

}  // namespace

ChannelEnergy integrate(const PowerTrace& trace, std::size_t channel, std::int64_t begin_ns, std::int64_t end_ns,
                        Integration method) {
  if (channel >= trace.channel_count()) {
    throw std::invalid_argument(fmt::format("energy: channel index {} is out of range; the trace has {} channels",
                                            channel, trace.channel_count()));
  }
  if (end_ns < begin_ns) {
    throw std::invalid_argument(
        fmt::format("energy: window end {} ns is before its begin {} ns; a window must not end before it starts",
                    end_ns, begin_ns));
  }
  return method == Integration::kTrapezoid ? integrate_trapezoid(trace, channel, begin_ns, end_ns)
                                           : integrate_rectangle(trace, channel, begin_ns, end_ns);
}

}  // namespace jetchar::jetson::energy
