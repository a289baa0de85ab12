// Descriptive statistics of a sample (epoch times, energies, ...). Empty input is a caller error
// (std::invalid_argument); statistics a sample is too small for are nullopt, never 0.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace jetchar::analysis {

double mean(std::span<const double> values);
double median(std::span<const double> values);
/// Sample standard deviation (n - 1); nullopt for fewer than two values.
std::optional<double> stddev(std::span<const double> values);
/// stddev / mean; nullopt for fewer than two values or a zero mean.
std::optional<double> coefficient_of_variation(std::span<const double> values);
/// MLPerf's "olympic" mean: drop one minimum and one maximum, average the rest; nullopt for
/// fewer than three values.
std::optional<double> olympic_mean(std::span<const double> values);
/// Linear-interpolation quantile (R type 7) of `values`, q in [0, 1].
double quantile(std::span<const double> values, double q);

struct Summary {
  std::size_t n = 0;
  double mean = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  std::optional<double> stddev;
  std::optional<double> cv;
  std::optional<double> olympic_mean;
};

Summary summarize(std::span<const double> values);

}  // namespace jetchar::analysis
