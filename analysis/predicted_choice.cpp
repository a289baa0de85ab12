#include "analysis/predicted_choice.h"

#include <fmt/format.h>

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace jetchar::analysis {
namespace {

using Kind = Budget::Kind;

// One mode as the choice sees it: the budgeted quantity's bound and the objective's point value,
// and for a predicted mode both per sample (log scale; empty for a measured mode, fixed in every
// sample at its measurement).
struct Judged {
  std::optional<double> bound;  ///< nullopt: unknown, or over the budget: not eligible
  bool known = false;           ///< the quantity and the objective are known (measured or predicted)
  double quantity = 0, objective = 0;
  std::vector<double> quantity_log, objective_log;
};

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

void check(const Budget& budget, double confidence, std::size_t modes, std::size_t measured) {
  if (budget.kind == Kind::kZeusCost) {
    throw std::invalid_argument("a Zeus cost has no budget to meet; it chooses among measured modes only");
  }
  if (budget.kind == Kind::kMaxLatency || budget.kind == Kind::kMinThroughput) {
    throw std::invalid_argument(
        fmt::format("'{}' is an inference budget; a choice from predictions takes a time, power or energy budget",
                    budget.describe()));
  }
  if (!(budget.value >= 0)) throw std::invalid_argument(fmt::format("budget {} must be >= 0", budget.value));
  if (!(confidence > 0.5 && confidence < 1)) {
    throw std::invalid_argument(fmt::format("confidence {} is outside (0.5, 1)", confidence));
  }
  if (measured != modes) {
    throw std::invalid_argument(fmt::format("{} modes but {} entries saying which are measured", modes, measured));
  }
}

// Every mode judged against the budget at the confidence, with its samples.
std::vector<Judged> judge(const ModePredictor& predictor, std::span<const PowerMode> modes,
                          std::span<const ConfigPoint* const> measured, const Budget& budget, double confidence) {
  const double bound_level = 2 * confidence - 1;
  // A measurement scatters too: its bound lies z_c root-mean-square left-out residuals above it
  // (the residuals hold the noise and the model's error, so the margin errs on the safe side).
  const std::optional<double> residual_variance = budget.kind == Kind::kMaxTime ? predictor.time_residual_variance()
                                                  : budget.kind == Kind::kMaxPower
                                                      ? predictor.power_residual_variance()
                                                      : predictor.energy_residual_variance();
  const double margin =
      std::exp(boost::math::quantile(boost::math::normal(), confidence) * std::sqrt(residual_variance.value_or(0)));
  std::vector<Judged> judged(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) {
    Judged& j = judged[i];
    if (const ConfigPoint* m = measured[i]) {
      const std::optional<double> quantity = budget.kind == Kind::kMaxTime    ? std::optional(m->time_s)
                                             : budget.kind == Kind::kMaxPower ? m->power_w
                                                                              : m->energy_j;
      const std::optional<double> objective = budget.kind == Kind::kMaxTime ? m->energy_j : std::optional(m->time_s);
      if (!quantity || !objective) continue;
      j.known = true, j.quantity = *quantity, j.objective = *objective, j.bound = *quantity * margin;
    } else {
      const ModePredictor::FoldPredictions folds = predictor.fold_predictions(modes[i]);
      const ModePrediction p = predictor.predict(modes[i], folds, bound_level);
      const std::optional<Interval> quantity = budget.kind == Kind::kMaxTime    ? std::optional(p.time_s)
                                               : budget.kind == Kind::kMaxPower ? p.power_w
                                                                                : p.energy_j;
      const std::optional<Interval> objective = budget.kind == Kind::kMaxTime ? p.energy_j : std::optional(p.time_s);
      if (!quantity || !objective) continue;
      j.known = true, j.quantity = quantity->value, j.objective = objective->value, j.bound = quantity->high;
      std::vector<double> energy = folds.log_time;
      for (std::size_t k = 0; k < energy.size(); ++k) energy[k] += folds.log_power[k];
      j.quantity_log = pseudo_values(budget.kind == Kind::kMaxTime    ? folds.log_time
                                     : budget.kind == Kind::kMaxPower ? folds.log_power
                                                                      : energy);
      j.objective_log = pseudo_values(budget.kind == Kind::kMaxTime ? energy : folds.log_time);
    }
    if (*j.bound > budget.value) j.bound.reset();
  }
  return judged;
}

double objective_in(const Judged& j, std::size_t sample) {
  return j.objective_log.empty() ? j.objective : std::exp(j.objective_log[sample]);
}
double quantity_in(const Judged& j, std::size_t sample) {
  return j.quantity_log.empty() ? j.quantity : std::exp(j.quantity_log[sample]);
}
std::size_t sample_count(const std::vector<Judged>& judged) {
  std::size_t samples = 0;
  for (const Judged& j : judged) samples = std::max(samples, j.objective_log.size());
  return samples;
}

std::optional<std::size_t> least_eligible(const std::vector<Judged>& judged) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < judged.size(); ++i) {
    if (judged[i].bound && (!best || judged[i].objective < judged[*best].objective)) best = i;
  }
  return best;
}

}  // namespace

std::optional<PredictedChoice> choose_from_predictions(const ModePredictor& predictor, std::span<const PowerMode> modes,
                                                       std::span<const ConfigPoint* const> measured,
                                                       const Budget& budget, double confidence) {
  check(budget, confidence, modes.size(), measured.size());
  const std::vector<Judged> judged = judge(predictor, modes, measured, budget, confidence);
  const std::optional<std::size_t> best = least_eligible(judged);
  if (!best) return std::nullopt;

  PredictedChoice out;
  out.index = *best;
  out.objective = judged[*best].objective;
  if (const ConfigPoint* m = measured[*best]) {
    out.measured = true;
    out.time_s = {m->time_s, m->time_s, m->time_s};
    if (m->power_w) out.power_w = Interval{*m->power_w, *m->power_w, *m->power_w};
    if (m->energy_j) out.energy_j = Interval{*m->energy_j, *m->energy_j, *m->energy_j};
  } else {
    const ModePrediction p = predictor.predict(modes[*best]);
    out.time_s = p.time_s, out.power_w = p.power_w, out.energy_j = p.energy_j;
  }
  const std::size_t samples = sample_count(judged);
  double regret = 0, within = 0;
  for (std::size_t k = 0; k < samples; ++k) {
    const double chosen = objective_in(judged[*best], k);
    double least = chosen;
    for (const Judged& j : judged) {
      if (j.bound) least = std::min(least, objective_in(j, k));
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

std::optional<std::size_t> most_decisive(const ModePredictor& predictor, std::span<const PowerMode> modes,
                                         std::span<const ConfigPoint* const> measured, const std::vector<bool>& tried,
                                         const Budget& budget, double confidence) {
  check(budget, confidence, modes.size(), measured.size());
  if (tried.size() != modes.size()) {
    throw std::invalid_argument(
        fmt::format("{} modes but {} entries saying which were tried", modes.size(), tried.size()));
  }
  const std::vector<Judged> judged = judge(predictor, modes, measured, budget, confidence);
  const std::optional<std::size_t> incumbent = least_eligible(judged);
  const std::size_t samples = sample_count(judged);
  std::optional<std::size_t> best;
  double most = 0;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    const Judged& j = judged[i];
    if (tried[i] || !j.known || j.quantity_log.empty()) continue;
    // Expected improvement under the constraint: per sample, how much less than the incumbent
    // this mode's objective is where it meets the budget (with no incumbent, where it meets it).
    double score = 0;
    for (std::size_t k = 0; k < samples; ++k) {
      if (quantity_in(j, k) > budget.value) continue;
      score += incumbent ? std::max(0.0, objective_in(judged[*incumbent], k) - objective_in(j, k)) /
                               objective_in(judged[*incumbent], k)
                         : 1.0;
    }
    if (score > most) most = score, best = i;
  }
  return best;
}

}  // namespace jetchar::analysis
