#include "analysis/stacking.h"

#include <Eigen/Dense>

#include "analysis/nnls.h"

namespace jetchar::analysis {

std::vector<double> stacking_weights(const std::vector<std::vector<double>>& cv_log, const std::vector<double>& measured) {
  std::vector<std::size_t> judged;
  for (std::size_t f = 0; f < cv_log.size(); ++f) {
    if (!cv_log[f].empty()) judged.push_back(f);
  }
  std::vector<double> weight(cv_log.size(), 0.0);
  if (judged.empty()) return weight;
  const auto n = static_cast<Eigen::Index>(measured.size());
  const auto m = static_cast<Eigen::Index>(judged.size());
  // The sum-to-one constraint as a heavily weighted extra row.
  constexpr double kSumRow = 1e3;
  Eigen::MatrixXd a(n + 1, m);
  Eigen::VectorXd b(n + 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) a(i, j) = cv_log[judged[static_cast<std::size_t>(j)]][static_cast<std::size_t>(i)];
    b(i) = measured[static_cast<std::size_t>(i)];
  }
  a.row(n).setConstant(kSumRow);
  b(n) = kSumRow;
  Eigen::VectorXd w = nnls(a, b).x;
  const double total = w.sum();
  if (!(total > 0)) w.setConstant(1.0 / static_cast<double>(m));
  else w /= total;
  for (Eigen::Index j = 0; j < m; ++j) weight[judged[static_cast<std::size_t>(j)]] = w(j);
  return weight;
}

}  // namespace jetchar::analysis
