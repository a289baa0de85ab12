// Bootstrap confidence intervals (percentile method), seeded so a report is reproducible.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

namespace jetchar::analysis {

struct ConfidenceInterval {
  double low = 0;
  double high = 0;
  double level = 0.95;
};

using Statistic = std::function<double(std::span<const double>)>;

struct BootstrapOptions {
  double level = 0.95;
  int resamples = 2000;
  std::uint64_t seed = 1;
};

/// Resamples `values` with replacement `resamples` times, applies `statistic` to each resample and
/// returns the (1-level)/2 and (1+level)/2 quantiles of those. Throws std::invalid_argument for an
/// empty sample, level outside (0, 1) or resamples < 1.
ConfidenceInterval bootstrap_ci(std::span<const double> values, const Statistic& statistic,
                                const BootstrapOptions& options = {});

}  // namespace jetchar::analysis
