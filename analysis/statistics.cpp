#include "analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace jetchar::analysis {
namespace {

void require_values(std::span<const double> values, const char* what) {
  if (values.empty()) throw std::invalid_argument(std::string(what) + " of an empty sample");
}

}  // namespace

double mean(std::span<const double> values) {
  require_values(values, "mean");
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double quantile(std::span<const double> values, double q) {
  require_values(values, "quantile");
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile: q must lie in [0, 1]");
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  double position = q * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<std::size_t>(std::floor(position));
  std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + fraction * (sorted[upper] - sorted[lower]);
}

double median(std::span<const double> values) {
  require_values(values, "median");
  return quantile(values, 0.5);
}

std::optional<double> stddev(std::span<const double> values) {
  if (values.size() < 2) return std::nullopt;
  double m = mean(values);
  double squares = 0;
  for (double v : values) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::optional<double> coefficient_of_variation(std::span<const double> values) {
  auto s = stddev(values);
  if (!s) return std::nullopt;
  double m = mean(values);
  if (m == 0) return std::nullopt;
  return *s / std::abs(m);
}

std::optional<double> olympic_mean(std::span<const double> values) {
  if (values.size() < 3) return std::nullopt;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double total = std::accumulate(values.begin(), values.end(), 0.0) - *lo - *hi;
  return total / static_cast<double>(values.size() - 2);
}

Summary summarize(std::span<const double> values) {
  require_values(values, "summary");
  Summary s;
  s.n = values.size();
  s.mean = mean(values);
  s.median = median(values);
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  s.stddev = stddev(values);
  s.cv = coefficient_of_variation(values);
  s.olympic_mean = olympic_mean(values);
  return s;
}

}  // namespace jetchar::analysis
