// The jackknife+ prediction interval on a log scale, shared by the mode predictor and the transfer
// predictor (analysis/mode_predictor.h explains the construction and its few-mode widening).
#pragma once

#include <vector>

#include "analysis/prediction_interval.h"

namespace jetchar::analysis {

/// The ⌈rank⌉-th smallest of `values` (1-based), clamped to the range.
double order_statistic(std::vector<double> values, double rank);

/// Jackknife standard deviation of the left-out values `v` (0 for fewer than two).
double jackknife_sd(const std::vector<double>& v);

/// The interval around `full` (the fit on every profiled mode) at `level`, from the left-out fits'
/// log predictions `loo_log` at the mode and their left-out log residuals `residual`.
Interval jackknife_plus(double full, const std::vector<double>& loo_log, const std::vector<double>& residual,
                        double level);

}  // namespace jetchar::analysis
