// Non-negative least squares, min ||A x − b|| subject to x >= 0, by Lawson and Hanson's active-set
// method (Solving Least Squares Problems, 1974, ch. 23). Used for time and power models whose terms
// are physical costs that cannot be negative.
#pragma once

#include <Eigen/Dense>

namespace jetchar::analysis {

struct NnlsResult {
  Eigen::VectorXd x;
  int iterations = 0;
  bool converged = false;  ///< false only if the iteration cap was hit
};

/// Throws std::invalid_argument when A's rows differ from b's size or a value is not finite.
NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, double tolerance = 1e-10);

}  // namespace jetchar::analysis
