#include "sweeps/adaptive_profile_sweep.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "analysis/adaptive_profile.h"
#include "analysis/config_point.h"
#include "analysis/mode_predictor.h"
#include "analysis/predicted_choice.h"
#include "analysis/statistics.h"
#include "results/epoch_medians.h"

namespace jetchar::sweeps {
namespace {

struct ModeGroup {
  analysis::PowerMode mode;
  std::vector<std::size_t> runs;  // indices into the plan
};

analysis::PowerMode power_mode_of(const proto::DeviceSpec& device) {
  analysis::PowerMode mode;
  mode.cpu_cores = static_cast<int>(device.cpu_cores());
  mode.cpu_freq_khz = std::llround(device.cpu_freq_mhz() * 1000.0);
  mode.gpu_freq_khz = std::llround(device.gpu_freq_mhz() * 1000.0);
  mode.emc_freq_khz = std::llround(device.emc_freq_mhz() * 1000.0);
  return mode;
}

std::uint32_t max_modes(const proto::AdaptiveProfileSpec& spec) { return spec.max_modes() > 0 ? spec.max_modes() : 15; }
std::uint32_t initial_modes(const proto::AdaptiveProfileSpec& spec) {
  return spec.initial_modes() > 0 ? spec.initial_modes() : std::min<std::uint32_t>(8, max_modes(spec));
}
double level(const proto::AdaptiveProfileSpec& spec) { return spec.level() > 0 ? spec.level() : 0.9; }

// The plan's power modes in plan order, each with its runs.
std::vector<ModeGroup> group_modes(const SweepPlan& plan) {
  std::vector<ModeGroup> groups;
  std::map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const auto& run = plan.runs[i];
    const auto [it, added] = by_key.emplace(run.mode_key, groups.size());
    if (added) groups.push_back({power_mode_of(run.spec.device()), {}});
    groups[it->second].runs.push_back(i);
  }
  return groups;
}

std::string run_values(const PlannedRun& run) {
  std::string text;
  for (const auto& [field, value] : run.axis_values)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", field, value);
  return text.empty() ? "base" : text;
}

// One profiled mode's point: medians over its OK runs of the warm-epoch E2E time and of the
// average power (energy / time); nullopt when no run of the mode is OK with a time.
std::optional<analysis::ConfigPoint> point_of(const std::vector<proto::RunResult>& results,
                                              const analysis::PowerMode& mode) {
  std::vector<double> times, powers;
  std::string workload;
  for (const auto& result : results) {
    if (result.status() != proto::OK) continue;
    const auto medians = results::warm_epoch_medians(result);
    if (!medians.e2e_s || *medians.e2e_s <= 0) continue;
    times.push_back(*medians.e2e_s);
    if (medians.energy_j && *medians.energy_j > 0) powers.push_back(*medians.energy_j / *medians.e2e_s);
    workload = result.resolved().workload().model();
  }
  if (times.empty()) return std::nullopt;
  analysis::ConfigPoint point;
  point.key.workload = workload;
  point.key.mode = mode;
  point.time_s = analysis::median(times);
  if (!powers.empty()) {
    point.power_w = analysis::median(powers);
    point.energy_j = *point.power_w * point.time_s;
  }
  point.samples = times.size();
  return point;
}

// Thrown through analysis::adaptive_profile's measure callback to end the loop early.
struct TimeBudgetSpent {};
struct SweepStopped {};

results::StoredModePrediction stored_prediction(const analysis::ModePredictor& predictor,
                                                const analysis::PowerMode& mode, const analysis::ConfigPoint* measured,
                                                bool modelled) {
  const auto p = predictor.predict(mode);
  results::StoredModePrediction s;
  s.mode = mode.label();
  s.cpu_cores = mode.cpu_cores.value_or(0);
  s.cpu_freq_khz = mode.cpu_freq_khz.value_or(0);
  s.gpu_freq_khz = mode.gpu_freq_khz.value_or(0);
  s.emc_freq_khz = mode.emc_freq_khz.value_or(0);
  s.time_s = p.time_s.value;
  s.time_low_s = p.time_s.low;
  s.time_high_s = p.time_s.high;
  if (p.power_w) {
    s.power_w = p.power_w->value;
    s.power_low_w = p.power_w->low;
    s.power_high_w = p.power_w->high;
  }
  if (p.energy_j) {
    s.energy_j = p.energy_j->value;
    s.energy_low_j = p.energy_j->low;
    s.energy_high_j = p.energy_j->high;
  }
  if (measured != nullptr) {
    s.profiled = true;
    s.measured_time_s = measured->time_s;
    s.measured_power_w = measured->power_w;
  }
  s.level = predictor.level();
  s.time_form = std::string(analysis::to_string(predictor.time_form()));
  if (predictor.power_form()) s.power_form = std::string(analysis::to_string(*predictor.power_form()));
  s.modelled = modelled;
  return s;
}

// The modes the profiler may choose from, as indices into the plan's modes: every mode, or a
// space-filling subset of candidate_modes of them, in plan order.
std::vector<std::size_t> candidate_groups(const proto::AdaptiveProfileSpec& spec,
                                          const std::vector<analysis::PowerMode>& all_modes) {
  std::vector<std::size_t> indices(all_modes.size());
  for (std::size_t i = 0; i < all_modes.size(); ++i) indices[i] = i;
  if (spec.candidate_modes() > 0 && spec.candidate_modes() < all_modes.size()) {
    indices = analysis::space_filling_design(all_modes, spec.candidate_modes());
    std::sort(indices.begin(), indices.end());
  }
  return indices;
}

// The choice an objective aims at (checked by check_adaptive_profile).
analysis::AdaptiveProfileOptions::Decision decision_of(const proto::ChoiceObjective& objective) {
  using Kind = analysis::Budget::Kind;
  analysis::AdaptiveProfileOptions::Decision out;
  out.budget = objective.has_max_time_s()    ? analysis::Budget(Kind::kMaxTime, objective.max_time_s())
               : objective.has_max_power_w() ? analysis::Budget(Kind::kMaxPower, objective.max_power_w())
                                             : analysis::Budget(Kind::kMaxEnergy, objective.max_energy_j());
  if (objective.confidence() != 0) out.confidence = objective.confidence();
  if (objective.has_target_probability()) out.target_probability = objective.target_probability();
  return out;
}

analysis::AdaptiveProfileOptions profile_options(const proto::AdaptiveProfileSpec& spec) {
  analysis::AdaptiveProfileOptions options;
  options.initial_modes = initial_modes(spec);
  options.max_modes = max_modes(spec);
  if (spec.has_target_mape_pct()) options.target_mape_pct = spec.target_mape_pct();
  options.predictor.level = level(spec);
  if (spec.has_objective()) options.decision = decision_of(spec.objective());
  return options;
}

// The predictor's chosen forms, their leave-one-out errors and a prediction for every mode of the
// plan (a measured one beside its measurement).
void record_predictions(const analysis::ModePredictor& predictor, const std::vector<analysis::PowerMode>& all_modes,
                        const std::map<analysis::PowerMode, analysis::ConfigPoint>& measured,
                        AdaptiveProfileSweepResult& out) {
  out.predicted = true;
  out.time_form = std::string(analysis::to_string(predictor.time_form()));
  if (predictor.power_form()) out.power_form = std::string(analysis::to_string(*predictor.power_form()));
  out.loo_time_mape_pct = predictor.loo_time_mape();
  out.loo_power_mape_pct = predictor.loo_power_mape();
  for (const auto& mode : all_modes) {
    const auto it = measured.find(mode);
    out.predictions.push_back(
        stored_prediction(predictor, mode, it != measured.end() ? &it->second : nullptr, out.modelled));
  }
}

}  // namespace

std::string profiling_duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

void check_adaptive_profile(const proto::AdaptiveProfileSpec& spec, const SweepPlan& plan, const std::string& source) {
  const auto bad = [&](const std::string& what) {
    return std::invalid_argument(fmt::format("{}: adaptive_profile: {}", source, what));
  };
  if (spec.has_target_mape_pct() && !(spec.target_mape_pct() > 0)) {
    throw bad(fmt::format("target_mape_pct {} must be a positive percentage (e.g. 5)", spec.target_mape_pct()));
  }
  if (initial_modes(spec) < 3) throw bad(fmt::format("initial_modes {} must be at least 3", initial_modes(spec)));
  if (max_modes(spec) < initial_modes(spec)) {
    throw bad(fmt::format("max_modes {} must be at least initial_modes {}", max_modes(spec), initial_modes(spec)));
  }
  if (spec.candidate_modes() > 0 && spec.candidate_modes() < initial_modes(spec)) {
    throw bad(fmt::format("candidate_modes {} must be 0 (all) or at least initial_modes {}", spec.candidate_modes(),
                          initial_modes(spec)));
  }
  if (spec.max_minutes() < 0 || !std::isfinite(spec.max_minutes())) {
    throw bad(fmt::format("max_minutes {} must be 0 (no limit) or positive", spec.max_minutes()));
  }
  if (!(level(spec) > 0 && level(spec) < 1))
    throw bad(fmt::format("level {} must be in (0, 1), e.g. 0.9", spec.level()));
  if (spec.has_objective()) {
    const proto::ChoiceObjective& o = spec.objective();
    if (o.budget_case() == proto::ChoiceObjective::BUDGET_NOT_SET) {
      throw bad("objective needs a budget: max_time_s, max_power_w or max_energy_j");
    }
    const double budget = decision_of(o).budget.value;
    if (!(budget > 0) || !std::isfinite(budget)) {
      throw bad(fmt::format("objective: budget {} must be a positive number", budget));
    }
    if (o.confidence() != 0 && !(o.confidence() > 0.5 && o.confidence() < 1)) {
      throw bad(fmt::format("objective: confidence {} must be in (0.5, 1), e.g. 0.9", o.confidence()));
    }
    if (o.has_target_probability() && !(o.target_probability() > 0 && o.target_probability() <= 1)) {
      throw bad(fmt::format("objective: target_probability {} must be in (0, 1], e.g. 0.9", o.target_probability()));
    }
  }
  for (const auto& run : plan.runs) {
    for (const auto& [field, value] : run.axis_values) {
      if (field.rfind("device.", 0) != 0) {
        throw bad(
            fmt::format("run {} sweeps {}={}; only power-mode axes (device.*) can be predicted across, so every "
                        "other setting must be the same in every run",
                        run.run_id, field, value));
      }
    }
    const auto& d = run.spec.device();
    std::vector<std::string> missing;
    if (!d.has_cpu_cores()) missing.push_back("device.cpu_cores");
    if (!d.has_cpu_freq_mhz()) missing.push_back("device.cpu_freq_mhz");
    if (!d.has_gpu_freq_mhz()) missing.push_back("device.gpu_freq_mhz");
    if (!d.has_emc_freq_mhz()) missing.push_back("device.emc_freq_mhz");
    if (!missing.empty()) {
      throw bad(fmt::format("run {} ({}) has no {}: the predictor needs every mode's cores and CPU, GPU and EMC clocks",
                            run.run_id, run_values(run), fmt::format("{}", fmt::join(missing, ", "))));
    }
  }
  const auto groups = group_modes(plan);
  std::map<analysis::PowerMode, std::size_t> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto [it, added] = seen.emplace(groups[g].mode, g);
    if (!added) {
      throw bad(
          fmt::format("runs {} and {} have the same cores and clocks ({}) but other device settings differ; the "
                      "predictor tells modes apart by those four knobs only",
                      plan.runs[groups[it->second].runs.front()].run_id, plan.runs[groups[g].runs.front()].run_id,
                      groups[g].mode.label()));
    }
  }
  if (groups.size() < initial_modes(spec)) {
    throw bad(fmt::format("the sweep has {} power mode(s); adaptive profiling starts from initial_modes = {}",
                          groups.size(), initial_modes(spec)));
  }
}

AdaptiveProfileSweepResult run_adaptive_profile(const proto::AdaptiveProfileSpec& spec, const SweepPlan& plan,
                                                results::ResultsStore& store, SweepJournal& journal,
                                                const SystemdNotifier& notifier, RunExecutor& executor,
                                                const SweepRunnerOptions& options, const OnProfiledMode& on_mode) {
  check_adaptive_profile(spec, plan, "sweep spec");
  const auto groups = group_modes(plan);
  std::vector<analysis::PowerMode> all_modes;
  for (const auto& g : groups) all_modes.push_back(g.mode);

  std::vector<analysis::PowerMode> candidates;
  std::map<analysis::PowerMode, std::size_t> group_of;
  for (const std::size_t g : candidate_groups(spec, all_modes)) {
    candidates.push_back(groups[g].mode);
    group_of[groups[g].mode] = g;
  }
  const analysis::AdaptiveProfileOptions options_profile = profile_options(spec);

  AdaptiveProfileSweepResult out;
  out.modes = groups.size();
  out.candidates = candidates.size();
  out.level = level(spec);
  // Modelled until a profiled run says otherwise (a run paced to a board's time model records it).
  out.modelled = true;
  std::size_t stored_runs = 0;
  std::vector<analysis::ConfigPoint> points;
  std::map<analysis::PowerMode, analysis::ConfigPoint> measured;
  const double budget_s = spec.max_minutes() * 60.0;

  const auto measure = [&](const analysis::PowerMode& mode) -> std::optional<analysis::ConfigPoint> {
    if (budget_s > 0 && out.profiling_s >= budget_s) throw TimeBudgetSpent{};
    const auto& group = groups.at(group_of.at(mode));
    SweepPlan one;
    for (const std::size_t i : group.runs) one.runs.push_back(plan.runs[i]);
    one.mode_switches = 1;
    bool one_stopped = false;
    const auto progress = SweepRunner(store, journal, notifier).run(one, executor, options, &one_stopped);
    out.progress.total += progress.total;
    out.progress.done += progress.done;
    out.progress.ran_now += progress.ran_now;
    out.progress.failed += progress.failed;
    if (one_stopped) throw SweepStopped{};
    std::vector<proto::RunResult> results;
    for (const auto& run : one.runs) {
      if (auto stored = store.load(options.sweep_name, run.run_id)) {
        out.profiling_s += stored->duration_s();
        out.modelled = out.modelled && !stored->context().time_model().empty();
        ++stored_runs;
        results.push_back(std::move(*stored));
      }
    }
    auto point = point_of(results, mode);
    if (point) {
      points.push_back(*point);
      measured[mode] = *point;
    }
    if (on_mode) {
      ProfiledMode report{mode.label(), measured.size(), options_profile.max_modes, std::nullopt, std::nullopt};
      if (point) report.time_s = point->time_s, report.power_w = point->power_w;
      on_mode(report);
    }
    return point;
  };

  std::optional<analysis::ModePredictor> predictor;
  try {
    auto outcome = analysis::adaptive_profile(candidates, measure, options_profile);
    predictor = std::move(outcome.predictor);
    out.stop_reason = outcome.stop_reason;
  } catch (const TimeBudgetSpent&) {
    out.stop_reason = fmt::format("time budget spent ({} of max_minutes {})", profiling_duration_text(out.profiling_s),
                                  spec.max_minutes());
    if (points.size() >= 3) predictor = analysis::ModePredictor::fit(points, options_profile.predictor);
  } catch (const SweepStopped&) {
    out.stopped = true;
  }
  out.profiled = measured.size();
  out.modelled = out.modelled && stored_runs > 0;
  if (out.stopped || !predictor) return out;

  record_predictions(*predictor, all_modes, measured, out);
  if (options_profile.decision) {
    const auto& decision = *options_profile.decision;
    std::vector<const analysis::ConfigPoint*> measured_at;
    for (const auto& mode : all_modes) {
      const auto it = measured.find(mode);
      measured_at.push_back(it != measured.end() ? &it->second : nullptr);
    }
    const auto choice =
        analysis::choose_from_predictions(*predictor, all_modes, measured_at, decision.budget, decision.confidence);
    results::StoredModeChoice& c = out.choice.emplace();
    c.budget = decision.budget.describe();
    c.confidence = decision.confidence;
    c.modes = static_cast<std::int64_t>(all_modes.size());
    if (choice) {
      c.mode = all_modes[choice->index].label();
      c.measured = choice->measured;
      c.eligible = static_cast<std::int64_t>(choice->eligible);
      c.time_s = choice->time_s.value;
      if (choice->energy_j) c.energy_j = choice->energy_j->value;
      c.expected_regret_pct = choice->expected_regret_pct;
      c.within_one_pct_probability = choice->within_one_pct_probability;
    }
  }
  results::save_mode_predictions(store.file(), options.sweep_name, out.predictions, out.choice);
  return out;
}

}  // namespace jetchar::sweeps
