// Prediction accuracy per ground truth and profiling budget (issue #20): MAPE over every mode of a
// grid that was not profiled, for
//   linear/random   the study's linear model on randomly chosen modes
//   nnls/spread     the resource model with non-negative work on the max-min spread design
//   auto/random     the mode predictor (CV-chosen physical forms) on random modes
//   auto/space      the mode predictor on the space-filling design alone
//   auto/adaptive   the mode predictor, space-filling then the most informative modes next
// and, for the mode predictor, how often the stated 90 % interval holds the measured time and power
// of the modes not profiled. Ground truths: tests/analysis/ground_truths.h (none is a predictor's form).
// Medians over seeds (each seed: another noise draw and another random choice).
//
//   prediction_bench [--seeds N] [--noise 0.02] [--grid G] [--budgets 5,10,15,25,50] [--truth NAME,...]
//   prediction_bench --coverage [--adaptive] [--seeds N] [--grid G] [--noise X] [--budgets 5,10,15,25]
//   prediction_bench --transfer [--seeds N] [--noise X] [--budgets 3,5,10] [--truth NAME,...]
//   prediction_bench --bias [--truth NAME,...]
//   prediction_bench --random N [--grid G] [--budgets 15]
//   prediction_bench --random N --draws D [--grid G] [--budgets 15]
//   prediction_bench --held-out [--draws 8] [--grid G] [--budgets 15]
//   prediction_bench --choice [--draws 4] [--grid G] [--budgets 10,15] [--truth NAME,...]
//
// G is orin (the 1,440-mode grid, the default), orin-full (its shape over the AGX Orin's whole
// clock ranges) or nx (360 modes).
//
// --coverage prints, instead, how often the stated 90 % interval holds the measured time, power and
// energy of the held-out modes, per grid, noise level (0.5, 2 and 5 % unless --noise), truth and
// budget, then pooled per truth and budget: the interval's calibration from few modes.
//
// --bias prints, instead, each power form's bias: its MAPE against the truth when fitted on every
// mode of the Orin grid without noise.
//
// --random prints, instead, the MAPE of N truths drawn from a wider family (random_truth in
// ground_truths.h: other work mixes, overlaps, V/f curves, leakage and idle draws), each profiled
// on the space-filling design, a random pick and the adaptive design at the noise of --noise, and
// how many miss the goal (time 5 %, power 3 %): whether the figures on the named truths carry over
// to truths nobody chose.
//
// --random N --draws D prints, instead, per design (space-filling, a random pick, adaptive) the mean, the
// worst and the count over the goal of the time and power MAPE of every fit, over the five named
// truths and the first N random ones, each measured D times (D noise draws, and D random picks): a
// figure steady enough to compare two versions of a form by.
//
// --held-out prints, instead, the same per truth of held_out_truths.h (truths built apart from the
// random family, each with a behaviour no form has) and then over them all.
//
// --choice prints, instead, how good the power mode chosen from predictions is: per truth, budget of
// profiled modes and design (space-filling, adaptive, and adaptive aimed at each budget's choice:
// AdaptiveProfileOptions::decision), for time budgets at the 10, 25, 50 and 75 %
// quantiles of the true epoch times, the least-energy mode chosen by its point prediction and the
// one chosen at 90 % confidence (analysis/predicted_choice.h), each scored against the truth: its
// true energy above the true optimum within the budget (regret, worst over quantiles and draws)
// and how many choices truly break the budget.
//
// --transfer prints, instead, a new workload adapted from a reference workload profiled on every
// mode (analysis/transfer_predictor.h) against the mode predictor alone and the study's linear
// model on the same picks, per truth, reference and budget, and across grids (print_transfer).
//
// Slow at large budgets: the adaptive method refits (with every form's cross-validation) after each
// mode it adds. On the shared 2-core development machine, budget 15 for all four truths with 3 seeds
// took 79 s; budgets 5–25 of one truth with 2 seeds about 20 min.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/adaptive_profile.h"
#include "analysis/cross_validation.h"
#include "analysis/mode_predictor.h"
#include "analysis/predicted_choice.h"
#include "analysis/predictor.h"
#include "analysis/profile_design.h"
#include "analysis/reference_model.h"
#include "analysis/statistics.h"
#include "analysis/transfer_predictor.h"
#include "tests/analysis/ground_truths.h"
#include "tests/analysis/held_out_truths.h"

namespace {

using namespace jetchar::analysis;

struct Score {
  double time_mape = 0, power_mape = 0, energy_mape = 0;
  double time_cover = -1, power_cover = -1;  // fraction of held-out modes inside the 90 % interval
  std::string forms;
  double energy_cover = -1;
};

// The mode grids --grid names: orin (1,440 modes), orin-full (the same shape over the AGX Orin's
// whole clock ranges) and nx (360).
std::vector<PowerMode> grid_modes(const std::string& name) {
  if (name == "nx") return jetchar::analysis::testing::xavier_nx_grid_360();
  if (name == "orin-full") return jetchar::analysis::testing::orin_full_range_grid_1440();
  return jetchar::analysis::testing::orin_grid_1440();
}

std::vector<bool> mask(std::size_t n, const std::vector<std::size_t>& picked) {
  std::vector<bool> in(n, false);
  for (std::size_t i : picked) in[i] = true;
  return in;
}

Score score_old(ModelKind kind, const std::vector<ConfigPoint>& pts, const std::vector<std::size_t>& picked) {
  auto in = mask(pts.size(), picked);
  std::vector<ConfigPoint> train, test;
  for (std::size_t i = 0; i < pts.size(); ++i) (in[i] ? train : test).push_back(pts[i]);
  Score s;
  if (train.size() < TimeEnergyModel::coefficient_count(kind)) return {-1, -1, -1, -1, -1, ""};
  auto model = TimeEnergyModel::fit(kind, train);
  double t = 0, p = 0, e = 0;
  for (const auto& pt : test) {
    auto pr = model.predict(pt.key.mode);
    t += std::abs(pr.time_s / pt.time_s - 1);
    p += std::abs(*pr.power_w / *pt.power_w - 1);
    e += std::abs(*pr.energy_j / *pt.energy_j - 1);
  }
  const double n = static_cast<double>(test.size());
  return {100 * t / n, 100 * p / n, 100 * e / n, -1, -1, ""};
}

// MAPE and 90 %-interval coverage of `model`'s predictions over the modes not profiled (`picked`);
// `Predictor` is ModePredictor or TransferPredictor.
template <typename Predictor>
Score score_predictions(const Predictor& model, const std::vector<ConfigPoint>& pts,
                        const std::vector<std::size_t>& picked) {
  auto in = mask(pts.size(), picked);
  double t = 0, p = 0, e = 0, tc = 0, pc = 0, ec = 0, n = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (in[i]) continue;
    const auto& pt = pts[i];
    auto pr = model.predict(pt.key.mode);
    t += std::abs(pr.time_s.value / pt.time_s - 1);
    p += std::abs(pr.power_w->value / *pt.power_w - 1);
    e += std::abs(pr.energy_j->value / *pt.energy_j - 1);
    tc += pt.time_s >= pr.time_s.low && pt.time_s <= pr.time_s.high;
    pc += *pt.power_w >= pr.power_w->low && *pt.power_w <= pr.power_w->high;
    ec += *pt.energy_j >= pr.energy_j->low && *pt.energy_j <= pr.energy_j->high;
    ++n;
  }
  Score s{100 * t / n, 100 * p / n, 100 * e / n, tc / n, pc / n, ""};
  s.energy_cover = ec / n;
  return s;
}

Score score_new(const ModePredictor& model, const std::vector<ConfigPoint>& pts,
                const std::vector<std::size_t>& picked) {
  Score s = score_predictions(model, pts, picked);
  s.forms = fmt::format("{}/{}", to_string(model.time_form()), to_string(*model.power_form()));
  return s;
}

std::vector<ConfigPoint> subset(const std::vector<ConfigPoint>& pts, const std::vector<std::size_t>& picked) {
  std::vector<ConfigPoint> out;
  for (std::size_t i : picked) out.push_back(pts[i]);
  return out;
}

Score median_score(const std::vector<Score>& v) {
  auto med = [&](auto field) {
    std::vector<double> x;
    for (const auto& s : v) x.push_back(s.*field);
    return median(x);
  };
  Score s{med(&Score::time_mape),  med(&Score::power_mape),  med(&Score::energy_mape),
          med(&Score::time_cover), med(&Score::power_cover), ""};
  // The forms chosen, one per seed.
  for (const auto& x : v) s.forms += (s.forms.empty() ? "" : " ") + x.forms;
  return s;
}

AdaptiveProfileResult adaptive_run(const std::vector<PowerMode>& modes, const std::vector<ConfigPoint>& pts,
                                   std::size_t budget) {
  AdaptiveProfileOptions options;
  options.initial_modes = std::min<std::size_t>(budget, std::max<std::size_t>(5, budget / 2));
  options.max_modes = budget;
  return adaptive_profile(
      modes,
      [&](const PowerMode& m) -> std::optional<ConfigPoint> {
        auto it = std::find(modes.begin(), modes.end(), m);
        return pts[static_cast<std::size_t>(it - modes.begin())];
      },
      options);
}

// The ground truths named by --truth (every named one when none is; "randomN" is random_truth(N)).
std::vector<jetchar::analysis::testing::Truth> truths_named(const std::vector<std::string>& only) {
  using namespace jetchar::analysis::testing;
  if (only.empty()) return all_truths();
  std::vector<Truth> out;
  for (const std::string& name : only) {
    if (name.rfind("random", 0) == 0 && name.size() > 6) {
      out.push_back(random_truth(std::stoull(name.substr(6))));
      continue;
    }
    for (const Truth& t : all_truths()) {
      if (t.name == name) out.push_back(t);
    }
    if (out.empty() || out.back().name != name) throw std::invalid_argument("no ground truth named " + name);
  }
  return out;
}

std::vector<std::size_t> random_design(std::size_t count, std::size_t budget, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  order.resize(budget);
  return order;
}

// The mode chosen by point predictions alone: the least predicted energy whose predicted time (or
// measured time, for a profiled mode) meets the budget.
std::optional<std::size_t> point_choice(const ModePredictor& predictor, const std::vector<PowerMode>& modes,
                                        const std::vector<const ConfigPoint*>& measured, double budget_s) {
  std::optional<std::size_t> best;
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < modes.size(); ++i) {
    double t = 0, e = 0;
    if (measured[i]) {
      t = measured[i]->time_s, e = *measured[i]->energy_j;
    } else {
      const ModePrediction p = predictor.predict(modes[i]);
      t = p.time_s.value, e = p.energy_j->value;
    }
    if (t <= budget_s && e < least) least = e, best = i;
  }
  return best;
}

// The worst true regret (%) and the true budget violations of the choices of one way of choosing.
struct ChoiceScore {
  double worst_regret_pct = 0, regret_sum = 0;
  int choices = 0, over_budget = 0, none = 0;
  void add(std::optional<std::size_t> chosen, const std::vector<double>& true_time,
           const std::vector<double>& true_energy, double budget_s, double optimum_j) {
    if (!chosen) {
      ++none;
      return;
    }
    ++choices;
    const double regret = 100 * (true_energy[*chosen] / optimum_j - 1);
    worst_regret_pct = std::max(worst_regret_pct, regret);
    regret_sum += regret;
    over_budget += true_time[*chosen] > budget_s;
  }
  std::string row() const {
    return fmt::format("{:7.2f} {:7.2f} {:>5}/{:<3}", worst_regret_pct, choices ? regret_sum / choices : 0.0,
                       over_budget, choices + none);
  }
};

void print_choice(const std::vector<jetchar::analysis::testing::Truth>& truths, const std::vector<PowerMode>& modes,
                  const std::vector<std::size_t>& budgets, int draws, double noise) {
  using namespace jetchar::analysis::testing;
  const std::vector<double> quantiles = {0.10, 0.25, 0.50, 0.75};
  fmt::print(
      "{} modes, noise {:.1f} %, {} draws, time budgets at the {} quantiles of the true times; regret = true energy of "
      "the choice above the true optimum within the budget, worst and mean %; over = choices truly over the budget\n",
      modes.size(), 100 * noise, draws, fmt::join(quantiles, "/"));
  fmt::print("{:<13} {:>3} {:<9}  {:>7} {:>7} {:>9}   {:>7} {:>7} {:>9}\n", "truth", "n", "design", "point", "mean",
             "over", "c=0.9", "mean", "over");
  for (const Truth& truth : truths) {
    std::vector<double> true_time, true_energy;
    for (const PowerMode& m : modes) {
      true_time.push_back(truth_time_s(m, truth));
      true_energy.push_back(true_time.back() * truth_power_w(m, truth));
    }
    std::vector<double> sorted = true_time;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t budget : budgets) {
      // Per design: the choice by point prediction and at 90 % confidence.
      std::vector<std::pair<ChoiceScore, ChoiceScore>> scores(3);
      for (int d = 0; d < draws; ++d) {
        const auto pts = measure(modes, truth, 5000 + static_cast<std::uint64_t>(d), noise);
        const auto space = space_filling_design(modes, budget);
        const ModePredictor space_fit = ModePredictor::fit(subset(pts, space));
        const AdaptiveProfileResult adaptive = adaptive_profile_of(pts, budget);
        for (double q : quantiles) {
          const double limit = sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
          double optimum = std::numeric_limits<double>::infinity();
          for (std::size_t i = 0; i < modes.size(); ++i) {
            if (true_time[i] <= limit) optimum = std::min(optimum, true_energy[i]);
          }
          const Budget time_budget(Budget::Kind::kMaxTime, limit);
          const AdaptiveProfileResult decision =
              adaptive_profile_of(pts, budget, {}, AdaptiveProfileOptions::Decision{time_budget, 0.9, std::nullopt});
          auto score = [&](const std::vector<std::size_t>& picked, const ModePredictor& predictor,
                           std::pair<ChoiceScore, ChoiceScore>& into) {
            std::vector<const ConfigPoint*> measured(modes.size(), nullptr);
            for (std::size_t i : picked) measured[i] = &pts[i];
            into.first.add(point_choice(predictor, modes, measured, limit), true_time, true_energy, limit, optimum);
            const auto c = choose_from_predictions(predictor, modes, measured, time_budget);
            into.second.add(c ? std::optional(c->index) : std::nullopt, true_time, true_energy, limit, optimum);
          };
          score(space, space_fit, scores[0]);
          score(adaptive.profiled, *adaptive.predictor, scores[1]);
          score(decision.profiled, *decision.predictor, scores[2]);
        }
      }
      const char* names[] = {"space", "adaptive", "decision"};
      for (std::size_t k = 0; k < scores.size(); ++k) {
        fmt::print("{:<13} {:>3} {:<9}  {}   {}\n", truth.name, budget, names[k], scores[k].first.row(),
                   scores[k].second.row());
      }
      std::fflush(stdout);
    }
  }
}

// Interval calibration: for every grid, noise level, ground truth and budget, the share of the
// held-out modes whose measured time, power and energy lie inside the stated 90 % interval, the
// mean over seeds and designs (space-filling, random, and adaptive with --adaptive) of each fit's share.
void print_coverage(const std::vector<std::string>& grids, const std::vector<double>& noises,
                    const std::vector<std::size_t>& budgets, int seeds, bool with_adaptive,
                    const std::vector<std::string>& only) {
  struct Cell {
    double time = 0, power = 0, energy = 0, fits = 0;
    void add(const Score& s) { time += s.time_cover, power += s.power_cover, energy += s.energy_cover, ++fits; }
    void add(const Cell& c) { time += c.time, power += c.power, energy += c.energy, fits += c.fits; }
    std::string shares() const {
      return fmt::format("{:>6.3f} {:>6.3f} {:>6.3f} {:>5}", time / fits, power / fits, energy / fits, fits);
    }
  };
  fmt::print("90 % interval coverage of held-out modes (time, power, energy; fits pooled: {} seeds × designs {})\n",
             seeds, with_adaptive ? "space-filling, random, adaptive" : "space-filling, random");
  fmt::print("{:<5} {:>6} {:<13} {:>4}  {:>6} {:>6} {:>6} {:>5}\n", "grid", "noise", "truth", "n", "time", "power",
             "energy", "fits");
  std::vector<std::pair<std::string, std::vector<Cell>>> by_truth;
  Cell all;
  std::vector<Cell> by_budget(budgets.size());
  for (const std::string& grid : grids) {
    const auto modes = grid_modes(grid);
    for (double noise : noises) {
      for (const auto& truth : truths_named(only)) {
        auto row = std::find_if(by_truth.begin(), by_truth.end(), [&](const auto& r) { return r.first == truth.name; });
        if (row == by_truth.end()) {
          row = by_truth.insert(by_truth.end(), {truth.name, std::vector<Cell>(budgets.size())});
        }
        for (std::size_t b = 0; b < budgets.size(); ++b) {
          Cell cell;
          for (int s = 0; s < seeds; ++s) {
            const auto seed = static_cast<std::uint64_t>(s);
            auto pts = jetchar::analysis::testing::measure(modes, truth, 5000 + seed, noise);
            auto random_pick = random_design(modes.size(), budgets[b], 91 + seed);
            cell.add(score_new(ModePredictor::fit(subset(pts, random_pick)), pts, random_pick));
            auto space = space_filling_design(modes, budgets[b]);
            cell.add(score_new(ModePredictor::fit(subset(pts, space)), pts, space));
            if (with_adaptive) {
              auto result = adaptive_run(modes, pts, budgets[b]);
              cell.add(score_new(*result.predictor, pts, result.profiled));
            }
          }
          fmt::print("{:<5} {:>6.3f} {:<13} {:>4}  {}\n", grid, noise, truth.name, budgets[b], cell.shares());
          std::fflush(stdout);
          row->second[b].add(cell);
          by_budget[b].add(cell);
          all.add(cell);
        }
      }
    }
  }
  fmt::print("\npooled over grids and noise levels\n{:<13} {:>4}  {:>6} {:>6} {:>6} {:>5}\n", "truth", "n", "time",
             "power", "energy", "fits");
  for (const auto& [name, cells] : by_truth) {
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      fmt::print("{:<13} {:>4}  {}\n", name, budgets[b], cells[b].shares());
    }
  }
  for (std::size_t b = 0; b < budgets.size(); ++b) {
    fmt::print("{:<13} {:>4}  {}\n", "all", budgets[b], by_budget[b].shares());
  }
  fmt::print("{:<13} {:>4}  {}\n", "all", "all", all.shares());
}

// Transfer from a reference workload (analysis/transfer_predictor.h): each truth as the new
// workload, adapted from a reference profiled on every mode of the Orin grid -- the same truth
// with other work (more GPU work, less DRAM traffic, more launch overhead, another switching
// power) and a different truth -- against the mode predictor and the study's linear model on
// the same space-filling picks, and across grids (an Orin-grid reference onto the NX grid).
void print_transfer(const std::vector<std::size_t>& budgets, int seeds, double noise,
                    const std::vector<std::string>& only) {
  using namespace jetchar::analysis::testing;
  const auto orin = orin_grid_1440(), nx = xavier_nx_grid_360();
  fmt::print(
      "transfer: MAPE % over the new workload's modes not profiled (medians over {} seeds), noise {:.1f} %; "
      "picks: the space-filling design; reference: every mode of the Orin grid\n",
      seeds, 100 * noise);
  fmt::print("{:<13} {:<14} {:<5} {:>3}  {:<22} {:>7} {:>7} {:>7} {:>6} {:>6}\n", "new", "reference", "grid", "n",
             "method", "time", "power", "energy", "tcov", "pcov");
  for (const auto& truth : truths_named(only)) {
    // gpu_bound's other truth is balanced; every other truth's is gpu_bound.
    const Truth other = truth.name == "gpu_bound" ? balanced() : gpu_bound();
    struct Case {
      Truth reference;
      bool nx;
    };
    for (const Case& c :
         {Case{with_other_work(truth), false}, Case{other, false}, Case{with_other_work(truth), true}}) {
      const auto& modes = c.nx ? nx : orin;
      for (std::size_t budget : budgets) {
        std::vector<Score> abs, always, norm, alone, lin;
        for (int s = 0; s < seeds; ++s) {
          const auto seed = static_cast<std::uint64_t>(s);
          const ReferenceModel reference = ReferenceModel::fit(measure(orin, c.reference, 3000 + seed, noise));
          auto pts = measure(modes, truth, 1000 + seed, noise);
          auto picked = space_filling_design(modes, budget);
          auto train = subset(pts, picked);
          TransferOptions options;
          abs.push_back(score_predictions(TransferPredictor::fit(reference, train, options), pts, picked));
          options.compare_with_own = false;
          always.push_back(score_predictions(TransferPredictor::fit(reference, train, options), pts, picked));
          options.compare_with_own = true;
          if (c.nx) {
            options.mapping = ClockMapping::kNormalised;
            options.target_modes = modes;
            norm.push_back(score_predictions(TransferPredictor::fit(reference, train, options), pts, picked));
          }
          alone.push_back(score_new(ModePredictor::fit(train), pts, picked));
          lin.push_back(score_old(ModelKind::kLinear, pts, picked));
        }
        auto row = [&](const std::string& method, const std::vector<Score>& v) {
          if (v.empty()) return;
          Score m = median_score(v);
          auto num = [](double x) { return x < 0 ? std::string("-") : fmt::format("{:.2f}", x); };
          fmt::print("{:<13} {:<14} {:<5} {:>3}  {:<22} {:>7} {:>7} {:>7} {:>6} {:>6}\n", truth.name, c.reference.name,
                     c.nx ? "nx" : "orin", budget, method, num(m.time_mape), num(m.power_mape), num(m.energy_mape),
                     num(m.time_cover), num(m.power_cover));
        };
        row(c.nx ? "transfer/absolute" : "transfer", abs);
        row(c.nx ? "transfer/absolute/always" : "transfer/always", always);
        row("transfer/normalised", norm);
        row("auto (no transfer)", alone);
        row("linear (the study's)", lin);
        std::fflush(stdout);
      }
    }
  }
}

// Each power form's bias: fitted on every mode of the Orin grid without noise (with the time form
// that fits those times best), its MAPE against the truth over the same modes.
void print_bias(const std::vector<std::string>& only) {
  using namespace jetchar::analysis::testing;
  const auto modes = orin_grid_1440();
  std::vector<ModeKnobs> knobs;
  for (const PowerMode& m : modes) knobs.push_back(ModeKnobs::of(m));
  fmt::print("power forms fitted on all {} modes without noise: MAPE % against the truth\n{:<13} {:<12}", modes.size(),
             "truth", "time form");
  for (PowerForm form : all_power_forms()) fmt::print(" {:>10}", to_string(form));
  fmt::print("\n");
  for (const auto& truth : truths_named(only)) {
    const auto pts = measure(modes, truth, 0, 0.0);
    std::vector<double> times, powers;
    for (const auto& p : pts) times.push_back(p.time_s), powers.push_back(*p.power_w);
    auto mape = [&](auto predict, const std::vector<double>& truth_values) {
      double sum = 0;
      for (std::size_t i = 0; i < knobs.size(); ++i) sum += std::abs(predict(knobs[i]) / truth_values[i] - 1);
      return 100 * sum / static_cast<double>(knobs.size());
    };
    std::optional<TimeModel> time;
    double best = std::numeric_limits<double>::infinity();
    for (TimeForm form : all_time_forms()) {
      TimeModel m = TimeModel::fit(form, knobs, times);
      const double e = mape([&](const ModeKnobs& k) { return m.time_s(k); }, times);
      if (e < best) best = e, time = m;
    }
    fmt::print("{:<13} {:<12}", truth.name, to_string(time->form()));
    for (PowerForm form : all_power_forms()) {
      const PowerModel m = PowerModel::fit(form, knobs, powers, &*time);
      fmt::print(" {:>10.2f}", mape([&](const ModeKnobs& k) { return m.power_w(k); }, powers));
    }
    fmt::print("\n");
    std::fflush(stdout);
  }
}

// Truths drawn at random (random_truth): per truth and budget, the mode predictor's MAPE on the
// space-filling design, a random pick and the adaptive design, then per design the spread over
// truths and how many miss the goal (time 5 %, power 3 %).
void print_random(int count, const std::vector<PowerMode>& modes, const std::vector<std::size_t>& budgets,
                  double noise) {
  using namespace jetchar::analysis::testing;
  fmt::print("{} random truths, {} modes, noise {:.1f} %; MAPE % over the modes not profiled\n", count, modes.size(),
             100 * noise);
  fmt::print("{:<10} {:>4}  {:<14} {:>7} {:>7} {:>7} {:>6} {:>6}  {}\n", "truth", "n", "design", "time", "power",
             "energy", "tcov", "pcov", "forms (time/power)");
  const char* const designs[] = {"auto/space", "auto/random", "auto/adaptive"};
  struct Tally {
    std::vector<double> time, power;
    int time_misses = 0, power_misses = 0;
  };
  std::vector<Tally> tallies(std::size(designs) * budgets.size());
  for (int i = 0; i < count; ++i) {
    const auto seed = static_cast<std::uint64_t>(i);
    const Truth truth = random_truth(seed);
    const auto pts = measure(modes, truth, 7000 + seed, noise);
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      for (std::size_t d = 0; d < std::size(designs); ++d) {
        Score s;
        if (d == 2) {
          const auto result = adaptive_run(modes, pts, budgets[b]);
          s = score_new(*result.predictor, pts, result.profiled);
        } else {
          const auto picked =
              d == 0 ? space_filling_design(modes, budgets[b]) : random_design(modes.size(), budgets[b], 500 + seed);
          s = score_new(ModePredictor::fit(subset(pts, picked)), pts, picked);
        }
        fmt::print("{:<10} {:>4}  {:<14} {:>7.2f} {:>7.2f} {:>7.2f} {:>6.2f} {:>6.2f}  {}\n", truth.name, budgets[b],
                   designs[d], s.time_mape, s.power_mape, s.energy_mape, s.time_cover, s.power_cover, s.forms);
        std::fflush(stdout);
        Tally& t = tallies[std::size(designs) * b + d];
        t.time.push_back(s.time_mape), t.power.push_back(s.power_mape);
        t.time_misses += s.time_mape > 5, t.power_misses += s.power_mape > 3;
      }
    }
  }
  auto spread = [](const std::vector<double>& v) {
    return fmt::format("{:.2f}/{:.2f}/{:.2f}", median(v), quantile(v, 0.9), *std::max_element(v.begin(), v.end()));
  };
  fmt::print("\n{:>4}  {:<14} {:>22} {:>22} {:>14}\n", "n", "design", "time median/p90/max", "power median/p90/max",
             "misses t/p");
  for (std::size_t b = 0; b < budgets.size(); ++b) {
    for (std::size_t d = 0; d < std::size(designs); ++d) {
      const Tally& t = tallies[std::size(designs) * b + d];
      fmt::print("{:>4}  {:<14} {:>22} {:>22} {:>8}/{}\n", budgets[b], designs[d], spread(t.time), spread(t.power),
                 t.time_misses, t.power_misses);
    }
  }
}

// A truth for print_draws: its name, its number (which sets its seeds) and its measurement.
struct DrawnTruth {
  std::string name;
  std::int64_t number = 0;
  std::function<std::vector<ConfigPoint>(std::uint64_t seed)> measure;
};

// --random N --draws D: the named truths (numbered −1 to −5) and random_truth 0 to N − 1.
std::vector<DrawnTruth> named_and_random_truths(int count, const std::vector<PowerMode>& modes, double noise) {
  using namespace jetchar::analysis::testing;
  std::vector<std::pair<std::int64_t, Truth>> truths;
  const std::vector<Truth> named = all_truths();
  for (std::size_t k = 0; k < named.size(); ++k) truths.emplace_back(-static_cast<std::int64_t>(k) - 1, named[k]);
  for (int i = 0; i < count; ++i) truths.emplace_back(i, random_truth(static_cast<std::uint64_t>(i)));
  std::vector<DrawnTruth> out;
  for (const auto& numbered : truths) {
    const Truth& truth = numbered.second;
    out.push_back({truth.name, numbered.first, [&modes, truth, noise](std::uint64_t seed) {
                     return jetchar::analysis::testing::measure(modes, truth, seed, noise);
                   }});
  }
  return out;
}

// --held-out --draws D: the truths of held_out_truths.h, numbered 2000 to 2005.
std::vector<DrawnTruth> held_out_drawn_truths(const std::vector<PowerMode>& modes, double noise) {
  using namespace jetchar::analysis::testing;
  std::vector<DrawnTruth> out;
  std::int64_t number = 2000;
  for (const HeldOutTruth& truth : held_out_truths()) {
    out.push_back({truth.name, number++, [&modes, truth, noise](std::uint64_t seed) {
                     return jetchar::analysis::testing::measure(modes, truth, seed, noise);
                   }});
  }
  return out;
}

// Each truth measured D times (noise seed 7000 + number + 1000·draw) and fitted on the
// space-filling design, on a random pick (seed 500 + number + 1000·draw) and on the adaptive
// loop's picks (adaptive_run); per design the mean,
// the worst and the count over the goal of the time and power MAPE of every fit, then how many
// truths miss the goal on their mean over the draws; with `per_truth` each truth's figures first.
void print_draws(const std::vector<DrawnTruth>& truths, int draws, const std::vector<PowerMode>& modes,
                 std::size_t budget, double noise, bool per_truth) {
  struct Tally {
    double time = 0, power = 0, worst_time = 0, worst_power = 0;
    int fits = 0, time_misses = 0, power_misses = 0;
    void add(const Score& s) {
      time += s.time_mape, power += s.power_mape, ++fits;
      worst_time = std::max(worst_time, s.time_mape), worst_power = std::max(worst_power, s.power_mape);
      time_misses += s.time_mape > 5, power_misses += s.power_mape > 3;
    }
  };
  constexpr int kDesigns = 3;
  const char* const names[kDesigns] = {"space-filling", "random", "adaptive"};
  const auto header = [](const char* first) {
    fmt::print("{:<22} {:>10} {:>10} {:>12} {:>10} {:>11} {:>12}\n", first, "time mean", "time worst", "time > 5 %",
               "power mean", "power worst", "power > 3 %");
  };
  const auto row = [](const std::string& label, const Tally& t) {
    fmt::print("{:<22} {:>10.3f} {:>10.2f} {:>5} of {:<3} {:>10.3f} {:>11.2f} {:>5} of {:<3}\n", label, t.time / t.fits,
               t.worst_time, t.time_misses, t.fits, t.power / t.fits, t.worst_power, t.power_misses, t.fits);
  };
  fmt::print("{} truths x {} draws, {} modes, {} profiled, noise {:.1f} %; MAPE % over the modes not profiled\n",
             truths.size(), draws, modes.size(), budget, 100 * noise);
  if (per_truth) header("truth (design)");
  Tally tallies[kDesigns];
  std::vector<std::string> mean_misses[kDesigns];
  for (const DrawnTruth& truth : truths) {
    Tally own[kDesigns];
    for (int d = 0; d < draws; ++d) {
      const auto seed = static_cast<std::uint64_t>(truth.number + 1000 * d);
      const auto pts = truth.measure(7000 + seed);
      for (int design = 0; design < kDesigns; ++design) {
        Score s;
        if (design == 2) {
          const AdaptiveProfileResult adaptive = adaptive_run(modes, pts, budget);
          s = score_new(*adaptive.predictor, pts, adaptive.profiled);
        } else {
          const auto picked =
              design == 0 ? space_filling_design(modes, budget) : random_design(modes.size(), budget, 500 + seed);
          s = score_new(ModePredictor::fit(subset(pts, picked)), pts, picked);
        }
        tallies[design].add(s);
        own[design].add(s);
      }
    }
    for (int design = 0; design < kDesigns; ++design) {
      const Tally& t = own[design];
      if (t.time / t.fits > 5 || t.power / t.fits > 3) {
        mean_misses[design].push_back(
            fmt::format("{} ({:.2f} / {:.2f} %)", truth.name, t.time / t.fits, t.power / t.fits));
      }
      if (per_truth) row(fmt::format("{} ({})", truth.name, names[design][0]), own[design]);
    }
  }
  header("design");
  for (int design = 0; design < kDesigns; ++design) row(names[design], tallies[design]);
  fmt::print("truths whose mean over the draws misses 5 % time or 3 % power (their time / power means):\n");
  for (int design = 0; design < kDesigns; ++design) {
    fmt::print("  {}: {} of {}{}{}\n", names[design], mean_misses[design].size(), truths.size(),
               mean_misses[design].empty() ? "" : ": ", fmt::join(mean_misses[design], ", "));
  }
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark that fails ends with the exception's message
int main(int argc, char** argv) {
  CLI::App app{"Mode prediction accuracy per ground truth and profiling budget"};
  int seeds = 3;
  double noise = 0.02;
  std::string grid = "orin";
  std::vector<std::size_t> budgets = {5, 10, 15, 25, 50};
  std::vector<std::string> only;
  app.add_option("--seeds", seeds, "noise draws / random choices per cell")->capture_default_str();
  app.add_option("--noise", noise, "relative measurement noise")->capture_default_str();
  app.add_option("--grid", grid,
                 "orin (1,440 modes), orin-full (the same shape over the AGX Orin's whole clock ranges: CPU from "
                 "115.2 MHz, EMC from 204 MHz) or nx (360)")
      ->check(CLI::IsMember({"orin", "orin-full", "nx"}))
      ->capture_default_str();
  app.add_option("--budgets", budgets, "profiled modes")->delimiter(',');
  app.add_option("--truth", only, "only these ground truths (randomN: random_truth(N))")->delimiter(',');
  bool coverage = false, with_adaptive = false;
  app.add_flag("--coverage", coverage,
               "print the 90 % intervals' coverage per grid, noise level (0.5, 2, 5 % unless --noise), truth and "
               "budget instead");
  app.add_flag("--adaptive", with_adaptive, "with --coverage: pool adaptive designs too (slow)");
  bool transfer = false;
  app.add_flag("--transfer", transfer,
               "print, instead, transfer from a reference workload against no transfer per truth and budget "
               "(3, 5, 10 unless --budgets), with a cross-grid case");
  int random_count = 0;
  app.add_option("--random", random_count,
                 "print, instead, the MAPE on N truths drawn from a wider family (budget 15 unless --budgets)");
  int draws = 0;
  app.add_option("--draws", draws,
                 "with --random: measure the named and the N random truths D times each and print per design "
                 "the mean and worst MAPE");
  bool bias = false;
  app.add_flag("--bias", bias, "print, instead, each power form's MAPE when fitted on every mode without noise");
  bool held_out = false;
  app.add_flag("--held-out", held_out,
               "print, instead, per truth of held_out_truths.h and per design the mean and worst MAPE over D draws "
               "(--draws, 8 unless given)");
  bool choice = false;
  app.add_flag("--choice", choice,
               "print, instead, the true regret and budget violations of the mode chosen from predictions, by point "
               "and at 90 % confidence (budgets 10, 15 and 4 draws unless given)");
  CLI11_PARSE(app, argc, argv);
  if (choice) {
    auto start = std::chrono::steady_clock::now();
    if (app.count("--budgets") == 0) budgets = {10, 15};
    print_choice(truths_named(only), grid_modes(grid), budgets, draws > 0 ? draws : 4, noise);
    fmt::print("elapsed {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }
  if (bias) {
    print_bias(only);
    return 0;
  }
  if (random_count > 0 || held_out) {
    auto start = std::chrono::steady_clock::now();
    if (app.count("--budgets") == 0) budgets = {15};
    const auto modes = grid_modes(grid);
    if (held_out) {
      print_draws(held_out_drawn_truths(modes, noise), draws > 0 ? draws : 8, modes, budgets.front(), noise, true);
    } else if (draws > 0) {
      print_draws(named_and_random_truths(random_count, modes, noise), draws, modes, budgets.front(), noise, false);
    } else {
      print_random(random_count, modes, budgets, noise);
    }
    fmt::print("elapsed {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }
  if (transfer) {
    auto start = std::chrono::steady_clock::now();
    if (app.count("--budgets") == 0) budgets = {3, 5, 10};
    print_transfer(budgets, seeds, noise, only);
    fmt::print("elapsed {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }
  if (coverage) {
    auto start = std::chrono::steady_clock::now();
    if (app.count("--budgets") == 0) budgets = {5, 10, 15, 25};
    // Every grid and noise level unless one is asked for.
    const std::vector<std::string> grids =
        app.count("--grid") ? std::vector<std::string>{grid} : std::vector<std::string>{"orin", "nx"};
    const std::vector<double> noises =
        app.count("--noise") ? std::vector<double>{noise} : std::vector<double>{0.005, 0.02, 0.05};
    print_coverage(grids, noises, budgets, seeds, with_adaptive, only);
    fmt::print("elapsed {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return 0;
  }

  const auto modes = grid_modes(grid);
  fmt::print(
      "grid {} ({} modes), noise {:.1f} %, {} seeds; MAPE % over the modes not profiled (medians over seeds); "
      "cover = share inside the 90 % interval\n",
      grid, modes.size(), 100 * noise, seeds);
  fmt::print("{:<13} {:>4}  {:<14} {:>7} {:>7} {:>7} {:>6} {:>6}  {}\n", "truth", "n", "method", "time", "power",
             "energy", "tcov", "pcov", "forms (time/power)");
  auto start = std::chrono::steady_clock::now();
  for (const auto& truth : truths_named(only)) {
    for (std::size_t budget : budgets) {
      std::vector<Score> lin, nn, rnd, spc, ada;
      for (int s = 0; s < seeds; ++s) {
        auto pts = jetchar::analysis::testing::measure(modes, truth, 1000 + static_cast<std::uint64_t>(s), noise);
        auto random_pick = random_design(pts.size(), budget, 77 + static_cast<std::uint64_t>(s));
        lin.push_back(score_old(ModelKind::kLinear, pts, random_pick));
        nn.push_back(score_old(ModelKind::kNnls, pts, spread_design(modes, budget)));
        rnd.push_back(score_new(ModePredictor::fit(subset(pts, random_pick)), pts, random_pick));
        auto space = space_filling_design(modes, budget);
        spc.push_back(score_new(ModePredictor::fit(subset(pts, space)), pts, space));
        auto result = adaptive_run(modes, pts, budget);
        ada.push_back(score_new(*result.predictor, pts, result.profiled));
      }
      auto row = [&](const char* name, const std::vector<Score>& v) {
        Score m = median_score(v);
        auto cov = [](double c) { return c < 0 ? std::string("-") : fmt::format("{:.2f}", c); };
        fmt::print("{:<13} {:>4}  {:<14} {:>7.2f} {:>7.2f} {:>7.2f} {:>6} {:>6}  {}\n", truth.name, budget, name,
                   m.time_mape, m.power_mape, m.energy_mape, cov(m.time_cover), cov(m.power_cover), m.forms);
      };
      row("linear/random", lin);
      row("nnls/spread", nn);
      row("auto/random", rnd);
      row("auto/space", spc);
      row("auto/adaptive", ada);
    }
  }
  fmt::print("elapsed {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
