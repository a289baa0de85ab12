// Adaptive profiling: the stopping rule that ends a run once its per-minibatch time and power
// have settled, so that a sweep over many power modes measures each only as long as it needs.
//
// After `warmup_minibatches` (caches, allocator, clocks and the loader's prefetch settle), each
// series is judged with the method of non-overlapping batch means: the n measured values are cut
// into k = n / b consecutive batches of b = floor(sqrt(n)) values, and the 95 % confidence
// interval of the mean is t(0.975, k-1) * sd(batch means) / sqrt(k) (Student t over the batch
// means). Batch means rather than a plain Student t over the minibatches because the minibatch
// series are autocorrelated: power per minibatch comes from a trace sampled every few ms, so
// neighbouring minibatches share samples, and time follows slow state (clocks, page cache,
// thermal). A t interval over the raw values assumes independence and would be far too narrow,
// stopping runs before they settled; batch means of growing size are nearly independent.
//
// Batch means alone do not see a slow drift in a short window (a linear trend over 30 values
// looks like noise), so a series is also unsettled while the least-squares trend through its
// batch means is significant (beyond its own 95 % interval, Student t with k-2 degrees of
// freedom) and changes the mean by more than the threshold across the judged window. Requiring
// significance keeps pure noise from being held back by the chance trends it shows.
//
// A series is settled when, after warm-up, it has at least `min_minibatches` values, at least
// kMinBatchMeans batches, half-width / |mean| below `relative_half_width` and no such trend.
// The run stops when time and (when the board has a power channel) power are both settled.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "proto/experiment_spec.pb.h"

namespace jetchar::experiments {

struct AdaptiveStopOptions {
  std::size_t warmup_minibatches = 10;
  double relative_half_width = 0.02;
  std::size_t min_minibatches = 30;
  double confidence = 0.95;
};

/// The spec's settings with its documented defaults for unset (zero) fields. Throws
/// std::invalid_argument naming the field for a threshold outside (0, 1).
AdaptiveStopOptions adaptive_options(const proto::AdaptiveSpec& spec);

/// Fewer batches than this give a t quantile too wide to be useful (t(0.975, 4) = 2.78).
inline constexpr std::size_t kMinBatchMeans = 5;

struct BatchMeansInterval {
  double mean = 0;
  double half_width = 0;        ///< of the confidence interval of the mean
  std::size_t batches = 0;      ///< k
  std::size_t batch_size = 0;   ///< b
  double trend = 0;             ///< fitted change of the batch means across the window (same unit)
  double trend_half_width = 0;  ///< of the confidence interval of `trend`
  /// half-width / |mean|; 0 for a constant zero series, infinity for zero mean with spread.
  double relative_half_width() const;
  double relative_trend() const;
  /// The trend is beyond its confidence interval and larger than `relative_threshold` of the mean.
  bool drifting(double relative_threshold) const;
};

/// Batch-means interval over `values` (the most recent k*b of them; the oldest n - k*b, nearest
/// the warm-up, are left out). nullopt with fewer than kMinBatchMeans values.
std::optional<BatchMeansInterval> batch_means_interval(std::span<const double> values, double confidence = 0.95);

class AdaptiveStop {
 public:
  /// `judge_power` false: the board has no power channel and time alone decides.
  AdaptiveStop(AdaptiveStopOptions options, bool judge_power);

  /// The time of the next minibatch (stall + compute), in seconds.
  void add_time(double seconds);
  /// The mean power of the next minibatch whose power is known, in watts. Power may lag behind
  /// time (the trace arrives later than the minibatch ends) but comes in minibatch order.
  void add_power(double watts);

  /// Judges what has arrived; true once both series are settled (and stays true).
  bool settled();

  std::size_t minibatches() const { return times_.size(); }
  std::size_t power_values() const { return powers_.size(); }
  bool judges_power() const { return judge_power_; }
  /// "time+power" or "time".
  std::string basis() const { return judge_power_ ? "time+power" : "time"; }
  /// Intervals of the last judgement (nullopt before there was enough data).
  const std::optional<BatchMeansInterval>& time_interval() const { return time_interval_; }
  const std::optional<BatchMeansInterval>& power_interval() const { return power_interval_; }
  const AdaptiveStopOptions& options() const { return options_; }

 private:
  bool series_settled(const std::vector<double>& values, std::optional<BatchMeansInterval>& interval) const;

  AdaptiveStopOptions options_;
  bool judge_power_;
  std::vector<double> times_;
  std::vector<double> powers_;
  std::optional<BatchMeansInterval> time_interval_;
  std::optional<BatchMeansInterval> power_interval_;
  bool settled_ = false;
};

}  // namespace jetchar::experiments
