// Predicting epoch time and energy for power modes that were never run, from a few profiled ones.
// The models see only the four knobs of a PowerMode (CPU cores, CPU/GPU/EMC frequency) and the
// measured time/energy/power of the profiled modes; they know nothing of where the data came from.
//
// Time models (t = epoch time; c = online CPU cores; f_cpu, f_gpu, f_emc in GHz):
//   linear    the study's model: t = b0 + b1·f_cpu + b2·c + b3·f_gpu + b4·f_emc (least squares)
//   inverse   t = b0 + b1/f_cpu + b2/c + b3/f_gpu + b4/f_emc (time ∝ 1/frequency)
//   resource  t = b0 + b1/(c·f_cpu) + b2/f_gpu + b3/f_emc (one term per resource: work / throughput)
//   nnls      the resource model fitted with non-negative coefficients (no negative work)
// Energy: E = P̂ · t̂, the predicted time times a power model. The power model is linear in the
// knobs (linear model: b0 + b1·f_cpu + b2·c + b3·f_gpu + b4·f_emc; the others: b0 + b1·c·f_cpu +
// b2·f_gpu + b3·f_emc, non-negative for nnls), fitted to measured average power.
#pragma once

#include <Eigen/Dense>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

enum class ModelKind { kLinear, kInverse, kResource, kNnls };

std::string_view to_string(ModelKind kind);
/// "linear", "inverse", "resource", "nnls"; throws std::invalid_argument naming the valid ones.
ModelKind parse_model_kind(std::string_view text);
const std::vector<ModelKind>& all_model_kinds();

struct Prediction {
  double time_s = 0;
  std::optional<double> power_w;
  std::optional<double> energy_j;
};

class TimeEnergyModel {
 public:
  /// Fits `kind` to `profiled` (points of one workload and one setting of the other axes).
  /// Throws std::invalid_argument when a point lacks a knob or there are fewer points than the
  /// model has coefficients. The power model is fitted when at least as many points have a power.
  static TimeEnergyModel fit(ModelKind kind, std::span<const ConfigPoint> profiled);

  /// Throws std::invalid_argument when `mode` lacks a knob.
  Prediction predict(const PowerMode& mode) const;

  ModelKind kind() const { return kind_; }
  /// Number of coefficients of the time model.
  static std::size_t coefficient_count(ModelKind kind);
  const Eigen::VectorXd& time_coefficients() const { return time_coefficients_; }
  const std::optional<Eigen::VectorXd>& power_coefficients() const { return power_coefficients_; }

 private:
  ModelKind kind_ = ModelKind::kLinear;
  Eigen::VectorXd time_coefficients_;
  std::optional<Eigen::VectorXd> power_coefficients_;
};

/// The feature row the time model of `kind` uses for `mode` (1 first). Throws when a knob is missing.
Eigen::RowVectorXd time_features(ModelKind kind, const PowerMode& mode);
Eigen::RowVectorXd power_features(ModelKind kind, const PowerMode& mode);

}  // namespace jetchar::analysis
