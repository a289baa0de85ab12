// Nonlinear least squares, min Σ r_i(θ)², by Levenberg–Marquardt (Eigen's MINPACK port,
// unsupported/Eigen/NonLinearOptimization, with a forward-difference Jacobian). The mode models
// fit their physical parameters through it on a log scale, which keeps them positive.
#pragma once

#include <Eigen/Dense>

#include <functional>

namespace jetchar::analysis {

/// Fills `residuals` (already sized to the residual count) for parameters `theta`.
using ResidualFunction = std::function<void(const Eigen::VectorXd& theta, Eigen::VectorXd& residuals)>;

struct LeastSquaresResult {
  Eigen::VectorXd theta;
  double cost = 0;         ///< Σ r_i² at theta
  bool converged = false;  ///< false when the evaluation cap stopped it
};

/// Minimises from `start`; `residual_count` must be at least the parameter count (add prior
/// residuals when data are fewer). Non-finite residuals count as a very large cost, so a step
/// into an overflow is rejected rather than taken. Throws std::invalid_argument for too few residuals.
LeastSquaresResult minimise_least_squares(const ResidualFunction& residuals, Eigen::Index residual_count,
                                          const Eigen::VectorXd& start, int max_evaluations = 2000);

}  // namespace jetchar::analysis
