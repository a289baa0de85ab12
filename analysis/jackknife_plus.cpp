#include "analysis/jackknife_plus.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

namespace jetchar::analysis {

double order_statistic(std::vector<double> values, double rank) {
  std::sort(values.begin(), values.end());
  auto k = static_cast<std::ptrdiff_t>(std::ceil(rank - 1e-9));
  k = std::clamp<std::ptrdiff_t>(k, 1, static_cast<std::ptrdiff_t>(values.size()));
  return values[static_cast<std::size_t>(k - 1)];
}

double jackknife_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const auto n = static_cast<double>(v.size());
  return std::sqrt((n - 1) / n * ss);
}

// Jackknife+ on a log scale; see analysis/mode_predictor.h. Where its upper rank exceeds n (n < level/(1 − level):
// fewer than 9 modes at 90 %) the exact jackknife+ interval is unbounded and the clamped one is the
// extreme left-out fits, which holds a new mode only about n/(n + 1) of the time; there it is widened
// to hold the Student-t predictive interval too (see the header).
Interval jackknife_plus(double full, const std::vector<double>& loo_log, const std::vector<double>& residual,
                        double level) {
  const auto n = static_cast<double>(loo_log.size());
  const double alpha = 1 - level;
  std::vector<double> lo, hi;
  for (std::size_t i = 0; i < loo_log.size(); ++i) {
    lo.push_back(loo_log[i] - residual[i]);
    hi.push_back(loo_log[i] + residual[i]);
  }
  const double low_rank = std::max(1.0, std::floor(alpha * (n + 1)));
  const double high_rank = std::ceil((1 - alpha) * (n + 1) - 1e-9);
  Interval out;
  out.value = full;
  out.low = std::min(full, std::exp(order_statistic(lo, low_rank)));
  out.high = std::max(full, std::exp(order_statistic(hi, high_rank)));
  if (high_rank > n) {
    double mean_square = 0;
    for (double r : residual) mean_square += r * r / n;
    const double spread = jackknife_sd(loo_log);
    const double half_width =
        boost::math::quantile(boost::math::students_t(n), 1 - alpha / 2) * std::sqrt(mean_square + spread * spread);
    out.low = std::min(out.low, full * std::exp(-half_width));
    out.high = std::max(out.high, full * std::exp(half_width));
  }
  return out;
}

}  // namespace jetchar::analysis
