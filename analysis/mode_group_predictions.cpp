#include "analysis/mode_group_predictions.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "analysis/adaptive_profile.h"
#include "analysis/mode_model.h"
#include "analysis/mode_predictor.h"
#include "analysis/profile_design.h"

namespace jetchar::analysis {

namespace {

// The points a group is fitted on (indices into g.points): every measured mode, or `profile` of
// them. The auto model profiles the modes an adaptive_profile sweep of that many modes would
// (adaptive_pick; bench/README.md, "Adaptive profiling": fewer fits over the goal than the
// space-filling design alone), and keeps the predictor that profile fitted on them. A transfer
// profiles the space-filling design; the fixed models keep the max-min spread design they were
// compared on.
struct ProfiledPoints {
  std::vector<std::size_t> indices;
  std::optional<ModePredictor> predictor;  ///< fitted on them with the request's level, when the profile did
};

ProfiledPoints profiled_points(const GroupPredictionRequest& request, const ModeGroup& g) {
  if (!request.profile) {
    std::vector<std::size_t> all(g.points.size());
    std::iota(all.begin(), all.end(), 0);
    return {all, std::nullopt};
  }
  std::vector<PowerMode> candidates;
  for (const auto& p : g.points) candidates.push_back(p.key.mode);
  if (!request.automatic) return {spread_design(candidates, *request.profile), std::nullopt};
  if (request.reference != nullptr) return {space_filling_design(candidates, *request.profile), std::nullopt};
  ModePredictorOptions options;
  options.level = request.interval_level;
  std::optional<AdaptiveProfileOptions::Decision> decision;
  if (request.profile_for_choice && request.choose) {
    decision = AdaptiveProfileOptions::Decision{*request.choose, request.confidence, std::nullopt};
  }
  AdaptiveProfileResult profile = adaptive_profile_of(g.points, *request.profile, options, decision);
  return {std::move(profile.profiled), std::move(profile.predictor)};
}

// One group's model: a transfer from the reference, the auto model, or a fixed one.
struct GroupModel {
  std::optional<TimeEnergyModel> fixed;
  std::optional<ModePredictor> predictor;
  std::optional<TransferPredictor> transfer;
  std::string name;
};

GroupModel fit_group(const GroupPredictionRequest& request, const std::vector<PowerMode>& modes,
                     const std::vector<ConfigPoint>& train, std::optional<ModePredictor> fitted) {
  GroupModel out;
  if (request.reference != nullptr) {
    TransferOptions options;
    options.level = request.interval_level;
    options.mapping = request.mapping;
    options.target_modes = modes;
    out.transfer = TransferPredictor::fit(*request.reference, train, options);
    // From 8 modes the workload's own predictor may have predicted its modes better (the model then says auto).
    out.name = out.transfer->adapted() ? fmt::format("transfer:{}", request.reference->workload())
                                       : fmt::format("auto:{}", forms_of(*out.transfer->own()));
  } else if (request.automatic) {
    ModePredictorOptions options;
    options.level = request.interval_level;
    out.predictor = fitted ? std::move(fitted) : ModePredictor::fit(train, options);
    out.name = fmt::format("auto:{}", forms_of(*out.predictor));
  } else {
    out.fixed = TimeEnergyModel::fit(request.kind, train);
    out.name = std::string(to_string(request.kind));
  }
  return out;
}

PredictedValue value_of(const Interval& i) { return {i.value, i.low, i.high}; }

// `model`'s time, power and energy at `m` into `p`.
void predict_with(const GroupModel& model, const PowerMode& m, PredictedMode& p) {
  if (model.predictor || model.transfer) {
    const ModePrediction predicted = model.predictor ? model.predictor->predict(m) : model.transfer->predict(m);
    p.time_s = value_of(predicted.time_s);
    if (predicted.power_w) p.power_w = value_of(*predicted.power_w);
    if (predicted.energy_j) p.energy_j = value_of(*predicted.energy_j);
  } else {
    const Prediction predicted = model.fixed->predict(m);
    p.time_s.value = predicted.time_s;
    p.power_w.value = predicted.power_w;
    p.energy_j.value = predicted.energy_j;
  }
}

GroupPredictions predict_group(const ModeGroup& g, const std::vector<PowerMode>& modes,
                               const GroupPredictionRequest& request) {
  GroupPredictions out;
  out.group = &g;
  std::vector<ConfigPoint> train;
  std::vector<bool> in_fit(g.points.size(), false);
  ProfiledPoints profiled = profiled_points(request, g);
  for (const std::size_t i : profiled.indices) train.push_back(g.points[i]), in_fit[i] = true;
  out.profiled = train.size();
  std::map<ModeKnobs, std::size_t> measured_at;  // a mode asked for finds its measured point by its knobs
  for (std::size_t i = 0; i < g.points.size(); ++i) measured_at.emplace(ModeKnobs::of(g.points[i].key.mode), i);
  const GroupModel model = fit_group(request, modes, train, std::move(profiled.predictor));
  out.model = model.name;
  // An inference group judged by a tail latency: power and energy per query come from a fit on the
  // mean latency, which a query's energy is spent over; power × the tail latency would overstate
  // the energy by the tail's ratio to the mean (and carry its noise).
  std::optional<GroupModel> energy_model;
  if (g.query_latency && *g.query_latency != LatencyPercentile::kAvg) {
    if (const auto at_mean = at_mean_latency(train); !at_mean.empty()) {
      energy_model = fit_group(request, modes, at_mean, std::nullopt);
      out.model += "; energy " + energy_model->name;
    }
  }

  std::vector<PowerMode> profiled_modes;
  for (const ConfigPoint& p : train) profiled_modes.push_back(p.key.mode);
  const ProfiledRange range(profiled_modes);
  std::map<std::string_view, std::size_t> extrapolated;
  for (const PowerMode& m : modes) {
    PredictedMode p;
    p.mode = m;
    for (const KnobRange& k : range.outside(m)) p.extrapolates.push_back(k.knob), ++extrapolated[k.knob];
    predict_with(model, m, p);
    if (energy_model) {
      PredictedMode at_mean;
      predict_with(*energy_model, m, at_mean);
      p.power_w = at_mean.power_w;
      p.energy_j = at_mean.energy_j;
    }
    const auto at = measured_at.find(ModeKnobs::of(m));
    if (at != measured_at.end()) {
      p.measured = &g.points[at->second];
      p.fitted_on = in_fit[at->second];
      if (!p.fitted_on) {
        out.held_out_time.add(*p.time_s.value, p.measured->time_s);
        if (p.power_w.value && p.measured->power_w) out.held_out_power.add(*p.power_w.value, *p.measured->power_w);
        if (p.energy_j.value && p.measured->energy_j) out.held_out_energy.add(*p.energy_j.value, *p.measured->energy_j);
      }
    }
    out.modes.push_back(std::move(p));
  }
  if (request.choose) {
    std::vector<const ConfigPoint*> measured;
    for (const PredictedMode& p : out.modes) measured.push_back(p.fitted_on ? p.measured : nullptr);
    out.choice = choose_from_predictions(*model.predictor, modes, measured, *request.choose, request.confidence);
  }
  if (request.suggest) {
    for (const std::size_t i : modes_to_profile_next(train, modes, *request.suggest))
      out.profile_next.push_back(&modes[i]);
  }
  for (const KnobRange& k : range.knobs()) {
    if (extrapolated.contains(k.knob)) out.extrapolated.push_back({k, extrapolated[k.knob]});
  }
  return out;
}

}  // namespace

GroupFits fit_auto(const ModeGroup& g, const ModePredictorOptions& options) {
  GroupFits fits{ModePredictor::fit(g.points, options), std::nullopt};
  if (g.query_latency && *g.query_latency != LatencyPercentile::kAvg) {
    if (const auto at_mean = at_mean_latency(g.points); !at_mean.empty())
      fits.energy = ModePredictor::fit(at_mean, options);
  }
  return fits;
}

void HeldOutMape::add(double predicted, double measured) {
  sum += std::abs(predicted / measured - 1);
  ++modes;
}

std::optional<double> HeldOutMape::pct() const {
  return modes ? std::optional<double>(100 * sum / static_cast<double>(modes)) : std::nullopt;
}

std::string forms_of(const ModePredictor& predictor) {
  return fmt::format("{}/{}", to_string(predictor.time_form()),
                     predictor.power_form() ? to_string(*predictor.power_form()) : "-");
}

std::vector<GroupPredictions> predict_groups(const std::vector<ModeGroup>& groups, const std::vector<PowerMode>& modes,
                                             const GroupPredictionRequest& request) {
  if (request.choose && (!request.automatic || request.reference != nullptr)) {
    throw std::invalid_argument(
        "choosing a mode from predictions needs the auto model's left-out fits: no fixed model, no reference");
  }
  std::vector<GroupPredictions> out;
  out.reserve(groups.size());
  for (const ModeGroup& g : groups) out.push_back(predict_group(g, modes, request));
  return out;
}

}  // namespace jetchar::analysis
