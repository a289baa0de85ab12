#include "analysis/predicted_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace jetchar::analysis {
namespace {

using Kind = Budget::Kind;

// One mode as the choice sees it: the budgeted quantity's bound, the objective's point value and
// its log per sample (empty for a measured mode: fixed in every sample).
struct Judged {
  std::optional<double> bound;  ///< nullopt: the quantity is unknown, so the mode cannot be judged
  double objective = 0;
  std::vector<double> sample_log;
};

Interval measured_interval(double v) { return {v, v, v}; }

// The jackknife pseudo-values of the fold predictions (log scale): the mean moved by √(K − 1)
// times each fold's deviation.
std::vector<double> pseudo_values(std::vector<double> logs) {
  if (logs.size() < 2) return logs;
  double mean = 0;
  for (double v : logs) mean += v / static_cast<double>(logs.size());
  const double inflate = std::sqrt(static_cast<double>(logs.size() - 1));
  for (double& v : logs) v = mean + inflate * (v - mean);
  return logs;
}

}  // namespace

std::optional<PredictedChoice> choose_from_predictions(const ModePredictor& predictor, std::span<const PowerMode> modes,
                                                       std::span<const ConfigPoint* const> measured,
                                                       const Budget& budget, double confidence) {
  if (budget.kind == Kind::kZeusCost) {
    throw std::invalid_argument("a Zeus cost has no budget to meet; it chooses among measured modes only");
  }
  if (!(budget.value >= 0)) throw std::invalid_argument(fmt::format("budget {} must be >= 0", budget.value));
  if (!(confidence > 0.5 && confidence < 1)) {
    throw std::invalid_argument(fmt::format("confidence {} is outside (0.5, 1)", confidence));
  }
  if (measured.size() != modes.size()) {
    throw std::invalid_argument(
        fmt::format("{} modes but {} entries saying which are measured", modes.size(), measured.size()));
  }
  const double bound_level = 2 * confidence - 1;
  std::vector<Judged> judged(modes.size());
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    Judged& j = judged[i];
    if (const ConfigPoint* m = measured[i]) {
      const std::optional<double> quantity = budget.kind == Kind::kMaxTime    ? std::optional(m->time_s)
                                             : budget.kind == Kind::kMaxPower ? m->power_w
                                                                              : m->energy_j;
      const std::optional<double> objective = budget.kind == Kind::kMaxTime ? m->energy_j : std::optional(m->time_s);
      if (!quantity || !objective) continue;
      j.bound = quantity, j.objective = *objective;
    } else {
      const ModePrediction p = predictor.predict(modes[i], bound_level);
      const std::optional<Interval> quantity = budget.kind == Kind::kMaxTime    ? std::optional(p.time_s)
                                               : budget.kind == Kind::kMaxPower ? p.power_w
                                                                                : p.energy_j;
      const std::optional<Interval> objective = budget.kind == Kind::kMaxTime ? p.energy_j : std::optional(p.time_s);
      if (!quantity || !objective) continue;
      j.bound = quantity->high, j.objective = objective->value;
      const ModePredictor::FoldPredictions folds = predictor.fold_predictions(modes[i]);
      std::vector<double> logs = folds.log_time;
      if (budget.kind == Kind::kMaxTime) {
        for (std::size_t k = 0; k < logs.size(); ++k) logs[k] += folds.log_power[k];
      }
      j.sample_log = pseudo_values(std::move(logs));
    }
    if (*j.bound > budget.value) j.bound.reset();
    if (j.bound && (!best || j.objective < judged[*best].objective)) best = i;
  }
  if (!best) return std::nullopt;

  PredictedChoice out;
  out.index = *best;
  out.objective = judged[*best].objective;
  if (const ConfigPoint* m = measured[*best]) {
    out.measured = true;
    out.time_s = measured_interval(m->time_s);
    if (m->power_w) out.power_w = measured_interval(*m->power_w);
    if (m->energy_j) out.energy_j = measured_interval(*m->energy_j);
  } else {
    const ModePrediction p = predictor.predict(modes[*best]);
    out.time_s = p.time_s, out.power_w = p.power_w, out.energy_j = p.energy_j;
  }
  // The samples: one per fold, measured modes at their measurements.
  std::size_t samples = 0;
  for (const Judged& j : judged) samples = std::max(samples, j.sample_log.size());
  auto value_in = [&](const Judged& j, std::size_t k) {
    return j.sample_log.empty() ? j.objective : std::exp(j.sample_log[k]);
  };
  double regret = 0, within = 0;
  for (std::size_t k = 0; k < samples; ++k) {
    const double chosen = value_in(judged[*best], k);
    double least = chosen;
    for (const Judged& j : judged) {
      if (j.bound) least = std::min(least, value_in(j, k));
    }
    regret += (chosen - least) / chosen;
    within += chosen <= 1.01 * least;
  }
  for (const Judged& j : judged) out.eligible += j.bound.has_value();
  if (samples > 0) {
    out.expected_regret_pct = 100 * regret / static_cast<double>(samples);
    out.within_one_pct_probability = within / static_cast<double>(samples);
  } else {
    out.within_one_pct_probability = 1;  // every mode measured: nothing is uncertain
  }
  return out;
}

}  // namespace jetchar::analysis
