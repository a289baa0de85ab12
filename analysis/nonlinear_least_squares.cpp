#include "analysis/nonlinear_least_squares.h"

#include <fmt/format.h>

#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <cmath>
#include <stdexcept>

namespace jetchar::analysis {
namespace {

struct Functor {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  const ResidualFunction* f = nullptr;
  Eigen::Index n_inputs = 0, n_values = 0;

  Eigen::Index inputs() const { return n_inputs; }
  Eigen::Index values() const { return n_values; }
  int operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& r) const {
    r.resize(n_values);
    (*f)(theta, r);
    for (Eigen::Index i = 0; i < r.size(); ++i) {
      if (!std::isfinite(r(i))) r(i) = 1e150;
    }
    return 0;
  }
};

}  // namespace

LeastSquaresResult minimise_least_squares(const ResidualFunction& residuals, Eigen::Index residual_count,
                                          const Eigen::VectorXd& start, int max_evaluations) {
  if (residual_count < start.size()) {
    throw std::invalid_argument(fmt::format("least squares with {} parameters needs at least {} residuals; got {}",
                                            start.size(), start.size(), residual_count));
  }
  Functor functor;
  functor.f = &residuals;
  functor.n_inputs = start.size();
  functor.n_values = residual_count;
  Eigen::NumericalDiff<Functor> diff(functor);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Functor>, double> lm(diff);
  lm.parameters.maxfev = max_evaluations;
  LeastSquaresResult out;
  out.theta = start;
  auto status = lm.minimize(out.theta);
  Eigen::VectorXd r(residual_count);
  functor(out.theta, r);
  out.cost = r.squaredNorm();
  out.converged = status != Eigen::LevenbergMarquardtSpace::TooManyFunctionEvaluation;
  return out;
}

}  // namespace jetchar::analysis
