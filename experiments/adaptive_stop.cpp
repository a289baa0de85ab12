#include "experiments/adaptive_stop.h"

#include <fmt/format.h>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace jetchar::experiments {

AdaptiveStopOptions adaptive_options(const proto::AdaptiveSpec& spec) {
  AdaptiveStopOptions options;
  if (spec.warmup_minibatches() > 0) options.warmup_minibatches = spec.warmup_minibatches();
  if (spec.min_minibatches() > 0) options.min_minibatches = spec.min_minibatches();
  if (spec.relative_half_width() != 0) {
    if (!(spec.relative_half_width() > 0 && spec.relative_half_width() < 1)) {
      throw std::invalid_argument(fmt::format(
          "adaptive.relative_half_width {} is out of range: give a fraction of the mean in (0, 1), e.g. 0.02",
          spec.relative_half_width()));
    }
    options.relative_half_width = spec.relative_half_width();
  }
  // Fewer measured minibatches than batch means would never be judged.
  if (options.min_minibatches < kMinBatchMeans) options.min_minibatches = kMinBatchMeans;
  return options;
}

double BatchMeansInterval::relative_half_width() const {
  if (mean != 0) return half_width / std::abs(mean);
  return half_width == 0 ? 0.0 : std::numeric_limits<double>::infinity();
}

double BatchMeansInterval::relative_trend() const {
  if (mean != 0) return std::abs(trend) / std::abs(mean);
  return trend == 0 ? 0.0 : std::numeric_limits<double>::infinity();
}

bool BatchMeansInterval::drifting(double relative_threshold) const {
  return std::abs(trend) > trend_half_width && relative_trend() >= relative_threshold;
}

std::optional<BatchMeansInterval> batch_means_interval(std::span<const double> values, double confidence) {
  const std::size_t n = values.size();
  if (n < kMinBatchMeans) return std::nullopt;
  std::size_t b = static_cast<std::size_t>(std::floor(std::sqrt(static_cast<double>(n))));
  // Small n: smaller batches, so that there are at least kMinBatchMeans of them.
  while (b > 1 && n / b < kMinBatchMeans) --b;
  const std::size_t k = n / b;
  const auto used = values.subspan(n - k * b);

  std::vector<double> means(k);
  for (std::size_t j = 0; j < k; ++j) {
    double sum = 0;
    for (std::size_t i = 0; i < b; ++i) sum += used[j * b + i];
    means[j] = sum / static_cast<double>(b);
  }
  double grand = 0;
  for (double m : means) grand += m;
  grand /= static_cast<double>(k);
  double squares = 0;
  for (double m : means) squares += (m - grand) * (m - grand);
  const double sd = std::sqrt(squares / static_cast<double>(k - 1));

  // Least-squares slope of the batch means over their index, times the window's span.
  const double centre = (static_cast<double>(k) - 1) / 2;
  double sxy = 0, sxx = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double x = static_cast<double>(j) - centre;
    sxy += x * (means[j] - grand);
    sxx += x * x;
  }
  const double slope = sxx > 0 ? sxy / sxx : 0.0;
  double residuals = 0;
  for (std::size_t j = 0; j < k; ++j) {
    const double fitted = grand + slope * (static_cast<double>(j) - centre);
    residuals += (means[j] - fitted) * (means[j] - fitted);
  }
  const double slope_se = sxx > 0 ? std::sqrt(residuals / static_cast<double>(k - 2) / sxx) : 0.0;

  const boost::math::students_t t_dist(static_cast<double>(k - 1));
  const double t = boost::math::quantile(t_dist, 0.5 + confidence / 2);
  BatchMeansInterval interval;
  interval.mean = grand;
  interval.half_width = t * sd / std::sqrt(static_cast<double>(k));
  interval.batches = k;
  interval.batch_size = b;
  interval.trend = slope * static_cast<double>(k - 1);
  const boost::math::students_t trend_dist(static_cast<double>(k - 2));
  interval.trend_half_width =
      boost::math::quantile(trend_dist, 0.5 + confidence / 2) * slope_se * static_cast<double>(k - 1);
  return interval;
}

AdaptiveStop::AdaptiveStop(AdaptiveStopOptions options, bool judge_power)
    : options_(options), judge_power_(judge_power) {}

void AdaptiveStop::add_time(double seconds) { times_.push_back(seconds); }

void AdaptiveStop::add_power(double watts) { powers_.push_back(watts); }

bool AdaptiveStop::series_settled(const std::vector<double>& values,
                                  std::optional<BatchMeansInterval>& interval) const {
  if (values.size() <= options_.warmup_minibatches) return false;
  const std::span<const double> measured(values.data() + options_.warmup_minibatches,
                                         values.size() - options_.warmup_minibatches);
  interval = batch_means_interval(measured, options_.confidence);
  if (measured.size() < options_.min_minibatches || !interval) return false;
  return interval->relative_half_width() < options_.relative_half_width &&
         !interval->drifting(options_.relative_half_width);
}

bool AdaptiveStop::settled() {
  if (settled_) return true;
  const bool time_ok = series_settled(times_, time_interval_);
  const bool power_ok = !judge_power_ || series_settled(powers_, power_interval_);
  settled_ = time_ok && power_ok;
  return settled_;
}

}  // namespace jetchar::experiments
