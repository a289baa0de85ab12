// Validation of the time/energy predictors: leave-one-out and k-fold mean absolute percentage error
// per workload (and per setting of the other swept axes), with the predicted-vs-measured table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/predictor.h"

namespace jetchar::analysis {

/// Points of one workload with one setting of the other axes: only the power mode varies.
struct ModeGroup {
  std::string workload;
  std::map<std::string, std::string> axes;
  std::vector<ConfigPoint> points;  ///< only points whose mode has all four knobs
  /// The axes that tell this group from the others mode_groups() returned with it (the rest are
  /// the same in every group); label() prints these.
  std::set<std::string> shown_axes;
  /// The points' ConfigPoint::query_latency: set for an inference group, whose times are that
  /// latency of a query and energies per query.
  std::optional<LatencyPercentile> query_latency;

  /// "lenet5/fashion-mnist batch=16": the workload ("inference" after it for an inference group)
  /// and the shown axes.
  std::string label() const;
};

std::vector<ModeGroup> mode_groups(const std::vector<ConfigPoint>& points);

struct PredictedVsMeasured {
  PowerMode mode;
  double measured_time_s = 0;
  double predicted_time_s = 0;
  std::optional<double> measured_energy_j;
  std::optional<double> predicted_energy_j;
};

/// Mean absolute percentage error (×100) of predicted against measured; nullopt when no pair has
/// both values or a measured value is 0.
std::optional<double> mape_time(std::span<const PredictedVsMeasured> rows);
std::optional<double> mape_energy(std::span<const PredictedVsMeasured> rows);

struct Validation {
  ModelKind kind = ModelKind::kLinear;
  std::size_t points = 0;
  std::optional<double> loo_time_mape, loo_energy_mape;
  std::optional<double> kfold_time_mape, kfold_energy_mape;
  int folds = 0;
  std::vector<PredictedVsMeasured> loo;  ///< one row per point, predicted without it
};

/// LOO and k-fold (seeded shuffle) validation of `kind` on `points`. Folds whose training part is
/// smaller than the model's coefficient count are not evaluated; MAPE is nullopt if none is.
Validation cross_validate(ModelKind kind, std::span<const ConfigPoint> points, int folds = 5, std::uint64_t seed = 1);

/// Fits on `train` and predicts every point of `test`.
std::vector<PredictedVsMeasured> holdout(ModelKind kind, std::span<const ConfigPoint> train,
                                         std::span<const ConfigPoint> test);

}  // namespace jetchar::analysis
