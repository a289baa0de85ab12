#include "jetson/energy/stream_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace jetchar::jetson::energy {
namespace {

// Linear interpolation of (t, v) at `at`; nullopt outside [t.front(), t.back()]. `cursor` makes
// monotone queries linear overall.
std::optional<double> interpolate(std::span<const std::int64_t> t, std::span<const double> v, double at,
                                  std::size_t& cursor) {
  if (t.empty() || at < static_cast<double>(t.front()) || at > static_cast<double>(t.back())) return std::nullopt;
  if (cursor >= t.size()) cursor = 0;
  if (static_cast<double>(t[cursor]) > at) cursor = 0;
  while (cursor + 1 < t.size() && static_cast<double>(t[cursor + 1]) < at) ++cursor;
  if (cursor + 1 >= t.size()) return v.back();
  const double t0 = static_cast<double>(t[cursor]);
  const double t1 = static_cast<double>(t[cursor + 1]);
  if (t1 <= t0) return v[cursor + 1];
  return v[cursor] + (v[cursor + 1] - v[cursor]) * (at - t0) / (t1 - t0);
}

}  // namespace

MeterClockFit fit_meter_clock(std::span<const std::int64_t> receive_ns, std::span<const std::uint64_t> sequence,
                              std::optional<double> nominal_interval_ns) {
  if (receive_ns.empty() || receive_ns.size() != sequence.size()) {
    throw std::invalid_argument(
        fmt::format("meter clock fit: {} receive timestamps and {} sequence numbers; need the same, non-zero count",
                    receive_ns.size(), sequence.size()));
  }
  for (std::size_t i = 1; i < sequence.size(); ++i) {
    if (sequence[i] <= sequence[i - 1]) {
      throw std::invalid_argument(
          fmt::format("meter clock fit: sequence number {} at position {} does not increase (previous {})", sequence[i],
                      i, sequence[i - 1]));
    }
  }
  MeterClockFit fit;
  const std::size_t n = receive_ns.size();
  // Work relative to the first point to keep doubles exact for nanosecond timestamps.
  const double t_ref = static_cast<double>(receive_ns[0]);
  const double s_ref = static_cast<double>(sequence[0]);
  if (n >= 2) {
    double mean_s = 0.0, mean_t = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      mean_s += static_cast<double>(sequence[i]) - s_ref;
      mean_t += static_cast<double>(receive_ns[i]) - t_ref;
    }
    mean_s /= static_cast<double>(n);
    mean_t /= static_cast<double>(n);
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double ds = static_cast<double>(sequence[i]) - s_ref - mean_s;
      sxx += ds * ds;
      sxy += ds * (static_cast<double>(receive_ns[i]) - t_ref - mean_t);
    }
    fit.interval_ns = sxy / sxx;
  } else if (nominal_interval_ns) {
    fit.interval_ns = *nominal_interval_ns;
  } else {
    throw std::invalid_argument("meter clock fit: one report and no nominal interval; cannot infer the interval");
  }
  // Lower envelope: the smallest residual is the least-delayed report.
  double min_residual = INFINITY;
  double max_residual = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) {
    const double residual =
        (static_cast<double>(receive_ns[i]) - t_ref) - fit.interval_ns * (static_cast<double>(sequence[i]) - s_ref);
    min_residual = std::min(min_residual, residual);
    max_residual = std::max(max_residual, residual);
  }
  fit.origin_ns = t_ref + min_residual - fit.interval_ns * s_ref;
  fit.max_delay_ns = max_residual - min_residual;
  return fit;
}

std::optional<OffsetEstimate> estimate_offset_xcorr(std::span<const std::int64_t> reference_t_ns,
                                                    std::span<const double> reference_value,
                                                    std::span<const std::int64_t> other_t_ns,
                                                    std::span<const double> other_value, std::int64_t max_lag_ns,
                                                    std::int64_t step_ns) {
  if (reference_t_ns.size() != reference_value.size() || other_t_ns.size() != other_value.size()) {
    throw std::invalid_argument("offset estimate: timestamps and values differ in length");
  }
  if (step_ns <= 0 || max_lag_ns < 0) {
    throw std::invalid_argument(
        fmt::format("offset estimate: step {} ns / max lag {} ns; the step must be positive and the lag not negative",
                    step_ns, max_lag_ns));
  }
  if (reference_t_ns.size() < 2 || other_t_ns.size() < 2) return std::nullopt;
  const std::int64_t begin = reference_t_ns.front();
  const std::int64_t span = reference_t_ns.back() - begin;
  const std::size_t grid = static_cast<std::size_t>(span / step_ns) + 1;
  std::vector<double> ref(grid);
  std::size_t cursor = 0;
  for (std::size_t j = 0; j < grid; ++j) {
    ref[j] = *interpolate(reference_t_ns, reference_value,
                          static_cast<double>(begin + static_cast<std::int64_t>(j) * step_ns), cursor);
  }
  std::optional<OffsetEstimate> best;
  for (std::int64_t lag = -max_lag_ns; lag <= max_lag_ns; lag += step_ns) {
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
    std::size_t count = 0;
    std::size_t other_cursor = 0;
    for (std::size_t j = 0; j < grid; ++j) {
      // The other stream shifted by `lag` has value other(t − lag) at time t.
      const double at = static_cast<double>(begin + static_cast<std::int64_t>(j) * step_ns - lag);
      const auto o = interpolate(other_t_ns, other_value, at, other_cursor);
      if (!o) continue;
      ++count;
      sa += ref[j];
      sb += *o;
      saa += ref[j] * ref[j];
      sbb += *o * *o;
      sab += ref[j] * *o;
    }
    if (count < 2 || 2 * count < grid) continue;
    const double n = static_cast<double>(count);
    const double var_a = saa - sa * sa / n;
    const double var_b = sbb - sb * sb / n;
    if (var_a <= 1e-12 * std::max(1.0, saa) || var_b <= 1e-12 * std::max(1.0, sbb)) continue;
    const double r = (sab - sa * sb / n) / std::sqrt(var_a * var_b);
    // Ties go to the smallest |lag| so a flat correlation plateau does not drift the answer.
    if (!best || r > best->correlation + 1e-12 ||
        (std::abs(r - best->correlation) <= 1e-12 && std::llabs(lag) < std::llabs(best->offset_ns))) {
      best = OffsetEstimate{lag, r};
    }
  }
  return best;
}

std::int64_t offset_from_marker_edges(std::span<const std::int64_t> reference_edges_ns,
                                      std::span<const std::int64_t> other_edges_ns) {
  const std::size_t n = std::min(reference_edges_ns.size(), other_edges_ns.size());
  if (n == 0) {
    throw std::invalid_argument(
        fmt::format("marker alignment: reference has {} edges and the other stream {}; both need at least one",
                    reference_edges_ns.size(), other_edges_ns.size()));
  }
  std::vector<std::int64_t> differences(n);
  for (std::size_t i = 0; i < n; ++i) differences[i] = reference_edges_ns[i] - other_edges_ns[i];
  std::nth_element(differences.begin(), differences.begin() + static_cast<std::ptrdiff_t>(n / 2), differences.end());
  return differences[n / 2];
}

}  // namespace jetchar::jetson::energy
