#include "analysis/bootstrap.h"

#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/statistics.h"

namespace jetchar::analysis {

ConfidenceInterval bootstrap_ci(std::span<const double> values, const Statistic& statistic,
                                const BootstrapOptions& options) {
  if (values.empty()) throw std::invalid_argument("bootstrap of an empty sample");
  if (!(options.level > 0 && options.level < 1)) throw std::invalid_argument("bootstrap: level must lie in (0, 1)");
  if (options.resamples < 1) throw std::invalid_argument("bootstrap: resamples must be >= 1");
  std::mt19937_64 rng(options.seed);
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  std::vector<double> resample(values.size());
  std::vector<double> estimates;
  estimates.reserve(static_cast<std::size_t>(options.resamples));
  for (int r = 0; r < options.resamples; ++r) {
    for (double& v : resample) v = values[pick(rng)];
    estimates.push_back(statistic(resample));
  }
  double tail = (1 - options.level) / 2;
  return {quantile(estimates, tail), quantile(estimates, 1 - tail), options.level};
}

}  // namespace jetchar::analysis
