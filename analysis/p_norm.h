// ‖x‖_p of non-negative terms: how the time models combine resources that overlap (p = 1 a sum,
// p → ∞ the largest), shared by the mode models (analysis/mode_model.h) and the reference model.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace jetchar::analysis {

/// Computed relative to the largest entry, so that a large p cannot overflow; 0 when every entry is 0.
inline double pnorm(std::initializer_list<double> x, double p) {
  double m = 0;
  for (double v : x) m = std::max(m, v);
  if (m <= 0) return 0;
  double s = 0;
  for (double v : x) s += std::pow(v / m, p);
  return m * std::pow(s, 1 / p);
}

}  // namespace jetchar::analysis
