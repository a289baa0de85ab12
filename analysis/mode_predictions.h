// The predictions an adaptive-profiling sweep stores beside its runs (table mode_predictions,
// written by results/mode_predictions_store.cpp, read by ResultsStoreReader::mode_predictions):
// every power mode of the sweep with its predicted epoch time, power and energy and their
// intervals, the profiled modes with their measured values. From them, the predicted Pareto front
// over every mode of the sweep: measured values where a mode was profiled, predictions elsewhere.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/prediction_interval.h"
#include "analysis/run_record.h"

namespace jetchar::analysis {

/// One row of mode_predictions.
struct StoredModePrediction {
  std::string sweep;
  PowerMode mode;  ///< name: the stored label; the four knobs from their columns
  bool profiled = false;
  Interval time_s;
  std::optional<Interval> power_w, energy_j;  ///< nullopt when the sweep measured no power
  std::optional<double> measured_time_s, measured_power_w;
  double level = 0.9;                 ///< the intervals' coverage
  std::string time_form, power_form;  ///< the forms the predictor chose ("" without power)
  bool modelled = false;              ///< times from a simulated board's time model
};

/// One row of mode_choices: the mode an adaptive-profiling sweep with an objective chose over every
/// mode of the sweep (analysis/predicted_choice.h), as it printed it.
struct StoredModeChoice {
  std::string sweep;
  std::string budget;  ///< the objective in words (Budget::describe)
  double confidence = 0.9;
  std::optional<std::string> mode;  ///< the chosen mode's label; nullopt when no mode was eligible
  bool measured = false;            ///< the chosen mode was profiled
  std::size_t eligible = 0, modes = 0;
  std::optional<double> time_s, energy_j;  ///< the chosen mode's epoch time and energy, measured or predicted
  std::optional<double> expected_regret_pct, within_one_pct_probability;  ///< with a mode
};

/// One mode on the time-energy plane of a predicted front.
struct PredictedFrontPoint {
  std::size_t prediction = 0;  ///< index into the predictions the front was built from
  bool measured = false;       ///< profiled with a measured time and power: the point is measured
  double time_s = 0, energy_j = 0;
  double time_low_s = 0, time_high_s = 0;      ///< the interval (the value itself when measured)
  double energy_low_j = 0, energy_high_j = 0;  ///< likewise
  bool on_front = false;
  /// Not surely off the front: no other mode's interval corner (time high, energy high) beats
  /// this mode's optimistic corner (time low, energy low) in both. Every front point is one.
  bool may_be_on_front = false;
};

/// The time-energy Pareto front of one sweep's modes.
struct PredictedParetoFront {
  std::string sweep;
  double level = 0.9;
  std::vector<PredictedFrontPoint> points;  ///< every mode with an energy, by time
  std::vector<std::size_t> front;           ///< indices into points, by time
  std::size_t measured_on_front = 0, predicted_on_front = 0;
};

/// One front per sweep among `predictions` (in order of first appearance). A profiled mode with a
/// measured time and power stands at its measured time and energy (time × power); every other mode
/// at its prediction. Modes without an energy (no power measured or predicted) are left out; a
/// sweep without any gives no front.
std::vector<PredictedParetoFront> predicted_pareto_fronts(const std::vector<StoredModePrediction>& predictions);

/// Where each of `count` predictions sits on its sweep's plane among `fronts` (built from those
/// predictions): a pointer into fronts[].points, nullptr for a mode without an energy.
std::vector<const PredictedFrontPoint*> front_points_by_prediction(const std::vector<PredictedParetoFront>& fronts,
                                                                   std::size_t count);

/// A point of a predicted front as JSON (mode label, measured, time and energy with their
/// intervals), the one layout of `jetchar analyze predictions --json` and the report's page;
/// `with_front_marks` adds on_front and may_be_on_front (the report's points carry them, analyze's
/// front entries, all on the front, do not).
nlohmann::json predicted_front_point_json(const PredictedFrontPoint& point, const StoredModePrediction& prediction,
                                          bool with_front_marks);

/// A predicted value with its interval as JSON ({value, low, high}; null when absent), the one layout
/// of `jetchar analyze predictions --json` and `analyze choose --modes --json`.
nlohmann::json interval_json(const std::optional<Interval>& interval);

/// A stored choice as JSON (budget, confidence, mode or null, measured, time, energy, eligible of
/// modes, expected regret, probability), the one layout of `jetchar analyze predictions --json` and
/// the report's page.
nlohmann::json mode_choice_json(const StoredModeChoice& choice);

}  // namespace jetchar::analysis
