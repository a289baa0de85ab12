#include "analysis/reference_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/nnls.h"
#include "analysis/parallel_for.h"

namespace jetchar::analysis {
namespace {

constexpr std::size_t kMaxFitModes = 240;
constexpr Eigen::Index kPowerColumns = 20;

Eigen::RowVectorXd power_row(const ModeKnobs& k, const BusyShares& u) {
  const double c = k.cores, f = k.cpu_ghz, g = k.gpu_ghz, m = k.emc_ghz;
  Eigen::RowVectorXd row(kPowerColumns);
  row << 1, c, c * f, c * f * f, c * f * f * f, u.cpu * f, u.cpu * f * f, u.cpu * f * f * f, g, g * g, g * g * g,
      u.gpu * g, u.gpu * g * g, u.gpu * g * g * g, m, m * m, m * m * m, u.mem * m, u.mem * m * m, u.mem * m * m * m;
  return row;
}

double mape_of(const std::vector<double>& predicted, const std::vector<double>& measured) {
  double s = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) s += std::abs(predicted[i] / measured[i] - 1);
  return 100 * s / static_cast<double>(measured.size());
}

}  // namespace

double combine_time_terms(TimeForm form, double p, double q, const ReferenceTimeTerms& t) {
  return t.fixed_s + combine_times(form, t.gpu_s, t.mem_s, t.cpu_serial_s + t.cpu_parallel_s, p, q);
}

BusyShares busy_shares(const ReferenceTimeTerms& t, double total_s) {
  return {(t.cpu_serial_s + t.cpu_parallel_s) / total_s, t.gpu_s / total_s, t.mem_s / total_s};
}

ReferenceModel ReferenceModel::fit(std::span<const ConfigPoint> points) {
  if (points.empty()) throw std::invalid_argument("a reference workload needs measured modes; got none");
  ReferenceModel out;
  out.workload_ = points.front().key.workload;
  for (const ConfigPoint& p : points) {
    if (p.key.workload != out.workload_) {
      throw std::invalid_argument(
          fmt::format("a reference is one workload; got '{}' and '{}'", out.workload_, p.key.workload));
    }
  }
  if (points.size() < kMinModes) {
    throw std::invalid_argument(fmt::format(
        "reference workload '{}' has {} measured modes; a reference needs at least {} (it is profiled widely)",
        out.workload_, points.size(), kMinModes));
  }
  out.modes_ = points.size();
  // A seeded random subset of a large sweep: a grid's nested order would alias with any stride.
  std::vector<std::size_t> used(points.size());
  std::iota(used.begin(), used.end(), 0);
  if (used.size() > kMaxFitModes) {
    std::mt19937_64 rng(1);
    std::shuffle(used.begin(), used.end(), rng);
    used.resize(kMaxFitModes);
  }
  std::vector<ModeKnobs> knobs;
  std::vector<double> times;
  for (std::size_t i : used) {
    knobs.push_back(ModeKnobs::of(points[i].key.mode));
    times.push_back(points[i].time_s);
  }
  out.low_.fill(std::numeric_limits<double>::infinity());
  out.high_.fill(0);
  for (const ConfigPoint& p : points) {
    const ModeKnobs k = ModeKnobs::of(p.key.mode);
    const std::array<double, 4> v = {k.cores, k.cpu_ghz, k.gpu_ghz, k.emc_ghz};
    for (std::size_t d = 0; d < 4; ++d)
      out.low_[d] = std::min(out.low_[d], v[d]), out.high_[d] = std::max(out.high_[d], v[d]);
  }

  // Each form on the even-numbered half, scored on the odd one; simplest first, 2 % ties.
  std::vector<ModeKnobs> train_k, test_k;
  std::vector<double> train_t, test_t;
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    (i % 2 ? test_k : train_k).push_back(knobs[i]);
    (i % 2 ? test_t : train_t).push_back(times[i]);
  }
  // The physical forms only: a transfer rescales each work term, and the power law has none.
  std::vector<TimeForm> forms = all_time_forms();
  std::erase(forms, TimeForm::kPowerLaw);
  std::stable_sort(forms.begin(), forms.end(),
                   [](TimeForm a, TimeForm b) { return parameter_count(a) < parameter_count(b); });
  std::vector<double> scores(forms.size());
  parallel_for(forms.size(), [&](std::size_t f) {
    const TimeModel m = TimeModel::fit(forms[f], train_k, train_t);
    std::vector<double> predicted;
    for (const ModeKnobs& k : test_k) predicted.push_back(m.time_s(k));
    scores[f] = mape_of(predicted, test_t);
  });
  const double best = *std::min_element(scores.begin(), scores.end());
  std::size_t chosen = 0;
  while (scores[chosen] > best * 1.02 + 1e-12) ++chosen;
  out.time_ = TimeModel::fit(forms[chosen], knobs, times);
  out.time_mape_ = scores[chosen];

  // Power over the modes with one, each row relative to its measured value.
  std::vector<std::size_t> powered;
  for (std::size_t i : used) {
    if (points[i].power_w) powered.push_back(i);
  }
  if (powered.size() < kMinModes) return out;
  const auto n = static_cast<Eigen::Index>(powered.size());
  Eigen::MatrixXd x(n, kPowerColumns);
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  std::vector<double> measured;
  for (Eigen::Index r = 0; r < n; ++r) {
    const ConfigPoint& p = points[powered[static_cast<std::size_t>(r)]];
    const double w = *p.power_w;
    if (!(w > 0) || !std::isfinite(w)) {
      throw std::invalid_argument(
          fmt::format("reference workload '{}': measured power {} W of mode {} is not a "
                      "positive number",
                      out.workload_, w, p.key.mode.label()));
    }
    const ModeKnobs k = ModeKnobs::of(p.key.mode);
    x.row(r) = power_row(k, busy_shares(out.time_terms(k), out.time_s(k))) / w;
    measured.push_back(w);
  }
  // Columns scaled to unit maximum so that NNLS's tolerance means the same for each.
  Eigen::VectorXd scale(kPowerColumns);
  for (Eigen::Index j = 0; j < kPowerColumns; ++j) {
    const double m = x.col(j).cwiseAbs().maxCoeff();
    scale(j) = m > 0 ? 1 / m : 1;
  }
  out.power_ = nnls(x * scale.asDiagonal(), ones).x.cwiseProduct(scale);
  std::vector<double> predicted;
  for (std::size_t i : powered) predicted.push_back(out.power_w(ModeKnobs::of(points[i].key.mode)));
  out.power_mape_ = mape_of(predicted, measured);
  return out;
}

ReferenceTimeTerms ReferenceModel::time_terms(const ModeKnobs& mode) const {
  const ResourceTimes r = time_.parts(mode);
  ReferenceTimeTerms t;
  t.fixed_s = r.fixed_s;
  t.gpu_s = r.gpu_s;
  t.mem_s = r.mem_s;
  t.cpu_serial_s = std::min(r.cpu_s, time_.cpu_serial_work() * time_.cpu_seconds_per_work(mode));
  t.cpu_parallel_s = r.cpu_s - t.cpu_serial_s;
  return t;
}

ReferencePowerTerms ReferenceModel::power_terms(const ModeKnobs& mode, const BusyShares& busy) const {
  const Eigen::RowVectorXd row = power_row(mode, busy);
  const Eigen::VectorXd& b = *power_;
  auto part = [&](Eigen::Index from, Eigen::Index count) {
    return row.segment(from, count).dot(b.segment(from, count));
  };
  return {part(0, 1), part(1, 1), part(2, 6), part(8, 6), part(14, 6)};
}

double ReferenceModel::time_s(const ModeKnobs& mode) const { return time_.time_s(mode); }

double ReferenceModel::power_w(const ModeKnobs& mode) const {
  return power_terms(mode, busy_shares(time_terms(mode), time_s(mode))).total();
}

}  // namespace jetchar::analysis
