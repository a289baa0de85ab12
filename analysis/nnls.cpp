#include "analysis/nnls.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace jetchar::analysis {
namespace {

// Least squares on the passive columns only; the others stay 0. The complete orthogonal
// decomposition gives the minimum-norm solution when passive columns are collinear.
Eigen::VectorXd passive_solution(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
  }
  Eigen::VectorXd s = Eigen::VectorXd::Zero(a.cols());
  if (cols.empty()) return s;
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t k = 0; k < cols.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
  Eigen::VectorXd z = sub.completeOrthogonalDecomposition().solve(b);
  for (std::size_t k = 0; k < cols.size(); ++k) s(cols[k]) = z(static_cast<Eigen::Index>(k));
  return s;
}

}  // namespace

NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, double tolerance) {
  if (a.rows() != b.size()) {
    throw std::invalid_argument(fmt::format("nnls: A has {} rows but b has {} values", a.rows(), b.size()));
  }
  if (!a.allFinite() || !b.allFinite()) throw std::invalid_argument("nnls: A and b must be finite");
  const Eigen::Index n = a.cols();
  NnlsResult result;
  result.x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<std::size_t>(n), false);
  // Scale the tolerance with the problem so it works for joules and for milliseconds alike.
  const double scale = std::max(1.0, a.norm() * b.norm());
  const double tol = tolerance * scale;
  const int max_iterations = 3 * static_cast<int>(n) + 30;

  Eigen::VectorXd w = a.transpose() * (b - a * result.x);
  for (;;) {
    Eigen::Index next = -1;
    double best = tol;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!passive[static_cast<std::size_t>(j)] && w(j) > best) {
        best = w(j);
        next = j;
      }
    }
    if (next < 0) {
      result.converged = true;
      break;
    }
    if (++result.iterations > max_iterations) break;
    passive[static_cast<std::size_t>(next)] = true;

    for (;;) {
      Eigen::VectorXd s = passive_solution(a, b, passive);
      double alpha = 2;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<std::size_t>(j)] && s(j) <= 0) {
          double denominator = result.x(j) - s(j);
          double step = denominator > 0 ? result.x(j) / denominator : 0;
          alpha = std::min(alpha, step);
        }
      }
      if (alpha > 1) {  // every passive coefficient is positive
        result.x = s;
        break;
      }
      result.x += alpha * (s - result.x);
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<std::size_t>(j)] &&
            result.x(j) <= 1e-14 * std::max(1.0, result.x.cwiseAbs().maxCoeff())) {
          passive[static_cast<std::size_t>(j)] = false;
          result.x(j) = 0;
        }
      }
    }
    w = a.transpose() * (b - a * result.x);
  }
  return result;
}

}  // namespace jetchar::analysis
