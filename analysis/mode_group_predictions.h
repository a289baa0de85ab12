// What `jetchar analyze predict` computes, as values a reporter prints: for each group of a
// sweep's results (a workload at one setting of the other axes), a model fitted to its profiled
// modes (all measured ones, or --profile N of them) predicts every mode of a modes file; the modes
// the fit left out give the held-out MAPE a user can expect on modes never run, the profiled range
// says which predictions extrapolate, and --suggest names the modes to profile next.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_choice.h"
#include "analysis/predicted_choice.h"
#include "analysis/predictor.h"
#include "analysis/profiled_range.h"
#include "analysis/reference_model.h"
#include "analysis/transfer_predictor.h"

namespace jetchar::analysis {

struct GroupPredictionRequest {
  /// The mode predictor with intervals (forms by cross-validation); false: the fixed `kind`.
  bool automatic = true;
  ModelKind kind = ModelKind::kNnls;
  std::optional<std::size_t> profile;  ///< fit on this many modes of each group; all measured ones without
  double interval_level = 0.9;
  /// Adapt this reference workload's model to each group (automatic only).
  const ReferenceModel* reference = nullptr;
  ClockMapping mapping = ClockMapping::kAbsolute;
  std::optional<std::size_t> suggest;  ///< name this many modes to profile next (automatic only)
  /// Choose a mode under this budget (time, power or energy) at `confidence` (automatic only, no
  /// reference): analysis/predicted_choice.h, the modes the fit was made on counting as measured.
  std::optional<Budget> choose;
  double confidence = 0.9;
  /// With `profile` and `choose`: profile the modes an adaptive profile aimed at that choice would
  /// (AdaptiveProfileOptions::decision) instead of those that narrow every prediction most.
  bool profile_for_choice = false;
};

/// A predicted value with its interval (none from a fixed model; power and energy may be absent).
struct PredictedValue {
  std::optional<double> value, low, high;
};

struct PredictedMode {
  PowerMode mode;
  PredictedValue time_s, power_w, energy_j;
  std::vector<std::string_view> extrapolates;  ///< knobs outside their profiled range
  const ConfigPoint* measured = nullptr;       ///< the group's measured point at these knobs
  bool fitted_on = false;                      ///< that point was one the fit was made on
};

/// The MAPE of predictions against the measured values of the modes the fit left out.
struct HeldOutMape {
  double sum = 0;  ///< of |predicted / measured - 1|
  std::size_t modes = 0;
  void add(double predicted, double measured);
  std::optional<double> pct() const;
};

struct GroupPredictions {
  const ModeGroup* group = nullptr;
  /// "auto:<time form>/<power form>", "transfer:<workload>" or a fixed model's name; for an inference
  /// group judged by a tail latency, "; energy <the same>" after it: the model of the mean latency
  /// that its power and energy per query come from.
  std::string model;
  std::size_t profiled = 0;
  std::vector<PredictedMode> modes;  ///< every mode asked for, in its order
  HeldOutMape held_out_time, held_out_power, held_out_energy;
  std::vector<const PowerMode*> profile_next;  ///< with a request's `suggest`
  std::optional<PredictedChoice> choice;       ///< with a request's `choose`, when a mode met the budget
  /// Per knob with a mode beyond its profiled range: the range and how many modes lie outside.
  struct Extrapolated {
    KnobRange range;
    std::size_t modes = 0;
  };
  std::vector<Extrapolated> extrapolated;
};

/// The auto model of one group as `analyze fit` scores it: `time` fitted on the group's measure;
/// for an inference group judged by a tail latency, `energy` fitted on the mean latency, which a
/// query's energy is spent over (predict_groups does the same), so that power and energy per query
/// are not power × the tail latency. Without it `time` gives power and energy too.
struct GroupFits {
  ModePredictor time;
  std::optional<ModePredictor> energy;
  const ModePredictor& of_energy() const { return energy ? *energy : time; }
};

/// Throws as ModePredictor::fit does.
GroupFits fit_auto(const ModeGroup& g, const ModePredictorOptions& options = {});

/// "<time form>/<power form>" of a fitted mode predictor ("-" without a power form).
std::string forms_of(const ModePredictor& predictor);

/// Predicts every mode of `modes` for each group; the results point into `groups` and `modes`,
/// which must outlive them. Throws what the fits throw (too few modes, a mode without a knob), and
/// std::invalid_argument for a `choose` with a fixed model or a reference.
std::vector<GroupPredictions> predict_groups(const std::vector<ModeGroup>& groups, const std::vector<PowerMode>& modes,
                                             const GroupPredictionRequest& request);

}  // namespace jetchar::analysis
