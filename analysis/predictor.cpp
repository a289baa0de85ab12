#include "analysis/predictor.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/nnls.h"

namespace jetchar::analysis {
namespace {

struct Knobs {
  double cores, cpu_ghz, gpu_ghz, emc_ghz;
};

Knobs knobs_of(const PowerMode& mode) {
  if (!mode.has_knobs()) {
    throw std::invalid_argument(fmt::format(
        "power mode '{}' lacks a knob the predictor needs (cpu_cores, cpu_freq, gpu_freq, emc_freq)", mode.label()));
  }
  return {static_cast<double>(*mode.cpu_cores), static_cast<double>(*mode.cpu_freq_khz) / 1e6,
          static_cast<double>(*mode.gpu_freq_khz) / 1e6, static_cast<double>(*mode.emc_freq_khz) / 1e6};
}

// Least squares with columns scaled to unit maximum (frequencies in GHz and their inverses differ
// by orders of magnitude); non-negative when asked. Minimum-norm when columns are collinear, e.g.
// when every profiled mode has the same core count.
Eigen::VectorXd solve(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, bool non_negative) {
  Eigen::VectorXd scale(x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    double m = x.col(j).cwiseAbs().maxCoeff();
    scale(j) = m > 0 ? 1 / m : 1;
  }
  Eigen::MatrixXd scaled = x * scale.asDiagonal();
  Eigen::VectorXd beta =
      non_negative ? nnls(scaled, y).x : Eigen::VectorXd(scaled.completeOrthogonalDecomposition().solve(y));
  return beta.cwiseProduct(scale);
}

}  // namespace

std::string_view to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::kLinear: return "linear";
    case ModelKind::kInverse: return "inverse";
    case ModelKind::kResource: return "resource";
    case ModelKind::kNnls: return "nnls";
  }
  return "?";
}

const std::vector<ModelKind>& all_model_kinds() {
  static const std::vector<ModelKind> kinds = {ModelKind::kLinear, ModelKind::kInverse, ModelKind::kResource,
                                               ModelKind::kNnls};
  return kinds;
}

ModelKind parse_model_kind(std::string_view text) {
  for (ModelKind k : all_model_kinds()) {
    if (text == to_string(k)) return k;
  }
  throw std::invalid_argument(fmt::format("model '{}' is unknown; valid: linear, inverse, resource, nnls", text));
}

Eigen::RowVectorXd time_features(ModelKind kind, const PowerMode& mode) {
  Knobs k = knobs_of(mode);
  Eigen::RowVectorXd row;
  switch (kind) {
    case ModelKind::kLinear:
      row.resize(5);
      row << 1, k.cpu_ghz, k.cores, k.gpu_ghz, k.emc_ghz;
      break;
    case ModelKind::kInverse:
      row.resize(5);
      row << 1, 1 / k.cpu_ghz, 1 / k.cores, 1 / k.gpu_ghz, 1 / k.emc_ghz;
      break;
    case ModelKind::kResource:
    case ModelKind::kNnls:
      row.resize(4);
      row << 1, 1 / (k.cores * k.cpu_ghz), 1 / k.gpu_ghz, 1 / k.emc_ghz;
      break;
  }
  return row;
}

Eigen::RowVectorXd power_features(ModelKind kind, const PowerMode& mode) {
  Knobs k = knobs_of(mode);
  Eigen::RowVectorXd row;
  if (kind == ModelKind::kLinear) {
    row.resize(5);
    row << 1, k.cpu_ghz, k.cores, k.gpu_ghz, k.emc_ghz;
  } else {
    row.resize(4);
    row << 1, k.cores * k.cpu_ghz, k.gpu_ghz, k.emc_ghz;
  }
  return row;
}

std::size_t TimeEnergyModel::coefficient_count(ModelKind kind) {
  return kind == ModelKind::kLinear || kind == ModelKind::kInverse ? 5 : 4;
}

TimeEnergyModel TimeEnergyModel::fit(ModelKind kind, std::span<const ConfigPoint> profiled) {
  const std::size_t p = coefficient_count(kind);
  if (profiled.size() < p) {
    throw std::invalid_argument(
        fmt::format("the {} model has {} coefficients and needs at least {} profiled modes; got {}", to_string(kind), p,
                    p, profiled.size()));
  }
  const auto n = static_cast<Eigen::Index>(profiled.size());
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(p));
  Eigen::VectorXd t(n);
  std::vector<Eigen::Index> with_power;
  for (Eigen::Index i = 0; i < n; ++i) {
    const ConfigPoint& point = profiled[static_cast<std::size_t>(i)];
    x.row(i) = time_features(kind, point.key.mode);
    t(i) = point.time_s;
    if (point.power_w) with_power.push_back(i);
  }
  TimeEnergyModel model;
  model.kind_ = kind;
  const bool non_negative = kind == ModelKind::kNnls;
  model.time_coefficients_ = solve(x, t, non_negative);

  const auto pp = power_features(kind, profiled.front().key.mode).size();
  if (static_cast<Eigen::Index>(with_power.size()) >= pp) {
    Eigen::MatrixXd xp(static_cast<Eigen::Index>(with_power.size()), pp);
    Eigen::VectorXd y(static_cast<Eigen::Index>(with_power.size()));
    for (std::size_t r = 0; r < with_power.size(); ++r) {
      const ConfigPoint& point = profiled[static_cast<std::size_t>(with_power[r])];
      xp.row(static_cast<Eigen::Index>(r)) = power_features(kind, point.key.mode);
      y(static_cast<Eigen::Index>(r)) = *point.power_w;
    }
    model.power_coefficients_ = solve(xp, y, non_negative);
  }
  return model;
}

Prediction TimeEnergyModel::predict(const PowerMode& mode) const {
  Prediction out;
  out.time_s = time_features(kind_, mode).dot(time_coefficients_);
  if (power_coefficients_) {
    out.power_w = power_features(kind_, mode).dot(*power_coefficients_);
    out.energy_j = *out.power_w * out.time_s;
  }
  return out;
}

}  // namespace jetchar::analysis
