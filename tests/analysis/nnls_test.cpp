#include "analysis/nnls.h"

#include <gtest/gtest.h>

#include <random>

namespace jetchar::analysis {
namespace {

// Brute force: the NNLS optimum is the best unconstrained least-squares solution over every subset
// of free columns whose solution is non-negative (the rest fixed at 0).
double brute_force_residual(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const int n = static_cast<int>(a.cols());
  double best = b.squaredNorm();
  for (int mask = 1; mask < (1 << n); ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < n; ++j) {
      if (mask & (1 << j)) cols.push_back(j);
    }
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
    Eigen::VectorXd z = sub.colPivHouseholderQr().solve(b);
    if ((z.array() < -1e-12).any()) continue;
    best = std::min(best, (sub * z - b).squaredNorm());
  }
  return best;
}

TEST(Nnls, ExactNonNegativeSolutionIsRecovered) {
  Eigen::MatrixXd a(4, 3);
  a << 1, 0, 2, 0, 1, 1, 1, 1, 0, 2, 1, 1;
  Eigen::VectorXd x_true(3);
  x_true << 0.5, 2, 1;
  auto r = nnls(a, a * x_true);
  EXPECT_TRUE(r.converged);
  EXPECT_TRUE(r.x.isApprox(x_true, 1e-9));
}

TEST(Nnls, ClampsWhereLeastSquaresGoesNegative) {
  // Unconstrained: b = 1·col0 − 1·col1; NNLS must set x1 = 0 and fit col0 alone.
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  Eigen::VectorXd b(3);
  b << 1, -1, 0;
  auto r = nnls(a, b);
  EXPECT_NEAR(r.x(1), 0, 1e-12);
  EXPECT_NEAR(r.x(0), 0.5, 1e-12);  // argmin (x-1)^2 + x^2
}

TEST(Nnls, MatchesBruteForceOnRandomProblems) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> d(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int rows = 3 + trial % 8, cols = 1 + trial % 5;
    Eigen::MatrixXd a(rows, cols);
    Eigen::VectorXd b(rows);
    for (int i = 0; i < rows; ++i) {
      b(i) = d(rng);
      for (int j = 0; j < cols; ++j) a(i, j) = d(rng);
    }
    auto r = nnls(a, b);
    ASSERT_TRUE(r.converged);
    EXPECT_TRUE((r.x.array() >= 0).all());
    EXPECT_NEAR((a * r.x - b).squaredNorm(), brute_force_residual(a, b), 1e-9) << "trial " << trial;
    // KKT: the gradient is ≤ 0 where x = 0 and 0 where x > 0.
    Eigen::VectorXd w = a.transpose() * (b - a * r.x);
    for (int j = 0; j < cols; ++j) {
      if (r.x(j) > 0) EXPECT_NEAR(w(j), 0, 1e-8);
      else EXPECT_LE(w(j), 1e-8);
    }
  }
}

TEST(Nnls, RejectsMismatchedShapes) {
  EXPECT_THROW(nnls(Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Ones(2)), std::invalid_argument);
}

}  // namespace
}  // namespace jetchar::analysis
