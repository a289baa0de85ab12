#include "analysis/mode_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>

#include "analysis/nnls.h"
#include "analysis/nonlinear_least_squares.h"

namespace jetchar::analysis {
namespace {

constexpr double kMaxLog = 40;                   // e^40: far beyond any physical work coefficient
constexpr double kMinShape = -8, kMaxShape = 5;  // p − 1 in [3e-4, 148]: from a sum to a max

double from_log(double theta) { return std::exp(std::clamp(theta, -kMaxLog, kMaxLog)); }
double exponent(double theta) { return 1 + std::exp(std::clamp(theta, kMinShape, kMaxShape)); }

// ‖x‖_p of non-negative terms, relative to the largest entry so that a large p cannot overflow;
// 0 when every entry is 0.
double pnorm(std::initializer_list<double> x, double p) {
  double m = 0;
  for (double v : x) m = std::max(m, v);
  if (m <= 0) return 0;
  double s = 0;
  for (double v : x) s += std::pow(v / m, p);
  return m * std::pow(s, 1 / p);
}

// The power laws' logarithms are linear in the knobs' logarithms: log y = log y1 ± (γc·log c +
// γf·log f + γg·log g + γm·log m), + for power (it rises with each knob), − for time (it falls).
Eigen::RowVectorXd log_knobs_row(const ModeKnobs& k) {
  Eigen::RowVectorXd row(5);
  row << 1, std::log(k.cores), std::log(k.cpu_ghz), std::log(k.gpu_ghz), std::log(k.emc_ghz);
  return row;
}

// NNLS with the columns scaled to unit maximum, which conditions the solve without moving the
// constraints (a positive scale keeps a coefficient's sign).
Eigen::VectorXd scaled_nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  Eigen::VectorXd scale(a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double m = a.col(j).cwiseAbs().maxCoeff();
    scale(j) = m > 0 ? 1 / m : 1;
  }
  return nnls(a * scale.asDiagonal(), b).x.cwiseProduct(scale);
}

// θ = (log y1, γc, γf, γg, γm) by least squares on log y with every γ ≥ 0 and the intercept free:
// NNLS over the columns 1 and −1 (one of the two stays 0) and sign·log knob.
Eigen::VectorXd fit_power_law(std::span<const ModeKnobs> modes, std::span<const double> values, double sign) {
  const auto n = static_cast<Eigen::Index>(modes.size());
  Eigen::MatrixXd a(n, 6);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::RowVectorXd row = log_knobs_row(modes[static_cast<std::size_t>(i)]);
    a.row(i) << 1, -1, sign * row.tail(4);
    b(i) = std::log(values[static_cast<std::size_t>(i)]);
  }
  const Eigen::VectorXd beta = scaled_nnls(a, b);
  Eigen::VectorXd theta(5);
  theta << beta(0) - beta(1), beta.tail(4);
  return theta;
}

double power_law_value(const Eigen::VectorXd& theta, const ModeKnobs& k, double sign) {
  const Eigen::RowVectorXd row = log_knobs_row(k);
  return std::exp(theta(0) + sign * row.tail(4).dot(theta.tail(4)));
}

bool has_p(TimeForm f) { return f != TimeForm::kSum && f != TimeForm::kPowerLaw; }
bool has_q(TimeForm f) { return f == TimeForm::kNested || f == TimeForm::kSaturating; }
bool has_k(TimeForm f) { return f == TimeForm::kSaturating; }

// 1/c, or with a core limit k the soft minimum (c^-6 + k^-6)^(1/6) of 1/c and 1/k: cores beyond
// k do not help (one launch thread, a fixed worker count).
// `limit_term` is k^−6, of the saturating form only (core_limit_term).
double per_core(double cores, std::optional<double> limit_term) {
  if (!limit_term) return 1 / cores;
  return std::pow(std::pow(cores, -6.0) + *limit_term, 1 / 6.0);
}
std::optional<double> core_limit_term(const Eigen::VectorXd& th, TimeForm form) {
  if (!has_k(form)) return std::nullopt;
  return std::pow(from_log(th(7)), -6.0);
}

// Where θ holds the GPU's clock exponent: after log d, log a, log b, log e1, log e2 and the form's
// log(p − 1), log(q − 1), log k.
Eigen::Index gpu_exponent_at(TimeForm form) {
  return 5 + (has_p(form) ? 1 : 0) + (has_q(form) ? 1 : 0) + (has_k(form) ? 1 : 0);
}

// 1/(1 + e^−x), clamped so that no θ overflows the exponential.
double logistic(double x) { return 1 / (1 + std::exp(-std::clamp(x, -30.0, 30.0))); }

// The GPU time is a/g^α: kernels whose every cycle is a GPU cycle scale as 1/g (α = 1), while
// parts bound by caches, launch latency or another clock domain shorten less (α < 1). α lies in
// (0.2, 1.2), a logistic function of θ; θ = ln 4 gives α = 1, where its prior sits.
double gpu_exponent_of(double theta) { return 0.2 + logistic(theta); }
const double kUnitGpuExponent = std::log(4.0);

// The CPU's work takes (1 − σ)/f + σ/m seconds per s·GHz: the share σ of it waits on DRAM (code
// that misses its caches runs at the memory's pace, not the core's). σ = logistic(θ) follows the
// GPU's exponent in θ. The fit starts at σ = 0.05 and a prior residual kCpuMemoryShareWeight·σ
// holds it near 0 unless the EMC clock moves the CPU's time (a 0.6 % relative error at σ = 0.3).
Eigen::Index cpu_memory_share_at(TimeForm form) { return gpu_exponent_at(form) + 1; }
constexpr double kCpuMemoryShareStart = 0.05, kCpuMemoryShareWeight = 0.02;
double cpu_memory_share_of(const Eigen::VectorXd& th, TimeForm form) { return logistic(th(cpu_memory_share_at(form))); }
double cpu_work_period(double share, const ModeKnobs& k) { return (1 - share) / k.cpu_ghz + share / k.emc_ghz; }

// The power law's parts are its elasticities times the time, scaled down when they add up to
// more than 1: for a sum of per-resource terms each term's elasticity is its share of the time.
ResourceTimes power_law_parts(const Eigen::VectorXd& th, const ModeKnobs& k) {
  ResourceTimes r;
  r.total_s = power_law_value(th, k, -1);
  const double elastic = th(2) + th(3) + th(4), scale = r.total_s / std::max(1.0, elastic);
  r.cpu_s = th(2) * scale, r.gpu_s = th(3) * scale, r.mem_s = th(4) * scale;
  r.fixed_s = r.total_s - r.cpu_s - r.gpu_s - r.mem_s;
  return r;
}

// What a physical form's θ says independently of the mode, worked out once for all the modes a
// residual evaluates (a fit evaluates every mode at every θ it tries).
struct TimeTerms {
  TimeForm form;
  const Eigen::VectorXd* theta;
  double fixed_s = 0, gpu_work = 0, gpu_exponent = 1, mem_work = 0, serial_work = 0, parallel_work = 0;
  double cpu_memory_share = 0, p = 1, q = 1;
  std::optional<double> limit_term;

  TimeTerms(TimeForm f, const Eigen::VectorXd& th) : form(f), theta(&th) {
    if (form == TimeForm::kPowerLaw) return;
    fixed_s = from_log(th(0));
    gpu_work = from_log(th(1));
    gpu_exponent = gpu_exponent_of(th(gpu_exponent_at(form)));
    mem_work = from_log(th(2));
    serial_work = from_log(th(3));
    parallel_work = from_log(th(4));
    cpu_memory_share = cpu_memory_share_of(th, form);
    if (has_p(form)) p = exponent(th(5));
    if (has_q(form)) q = exponent(th(6));
    limit_term = core_limit_term(th, form);
  }
};

ResourceTimes evaluate(const TimeTerms& t, const ModeKnobs& k) {
  if (t.form == TimeForm::kPowerLaw) return power_law_parts(*t.theta, k);
  ResourceTimes r;
  r.fixed_s = t.fixed_s;
  r.gpu_s = t.gpu_work / std::pow(k.gpu_ghz, t.gpu_exponent);
  r.mem_s = t.mem_work / k.emc_ghz;
  r.cpu_s =
      (t.serial_work + t.parallel_work * per_core(k.cores, t.limit_term)) * cpu_work_period(t.cpu_memory_share, k);
  r.total_s = r.fixed_s + combine_times(t.form, r.gpu_s, r.mem_s, r.cpu_s, t.p, t.q);
  return r;
}

void check_sizes(std::string_view what, std::size_t modes, std::size_t values, std::size_t minimum,
                 std::string_view form) {
  if (modes != values) {
    throw std::invalid_argument(fmt::format("{} model: {} modes but {} measured values", what, modes, values));
  }
  if (modes < minimum) {
    throw std::invalid_argument(
        fmt::format("the {} {} model needs at least {} profiled modes; got {}", form, what, minimum, modes));
  }
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// NNLS on rows divided by the measured value (relative error).
Eigen::VectorXd relative_nnls(const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
  Eigen::MatrixXd a = x;
  for (Eigen::Index i = 0; i < a.rows(); ++i) a.row(i) /= y(i);
  return scaled_nnls(a, Eigen::VectorXd::Ones(y.size()));
}

// relative_nnls with a ridge on one column: one more row, sqrt(kStallRidge) times the column's
// largest relative value with target 0, costs kStallRidge times the square of the column's largest
// share of the power. It keeps the voltage form's DRAM-stall term small unless the data need it:
// with a lighter ridge, 15 noisy modes lean on it to follow noise, and the voltage form loses to
// worse forms on workloads whose GPU draws the same whether busy or stalled (weights 0.02 to 0.5
// compared in bench/README.md).
constexpr double kStallRidge = 0.5;
Eigen::VectorXd ridged_nnls(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Eigen::Index col) {
  const Eigen::Index n = x.rows();
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n + 1, x.cols());
  for (Eigen::Index i = 0; i < n; ++i) a.row(i) = x.row(i) / y(i);
  a(n, col) = std::sqrt(kStallRidge) * a.col(col).head(n).cwiseAbs().maxCoeff();
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n + 1);
  b(n) = 0;
  return scaled_nnls(a, b);
}

std::array<double, 5> sum_features(const ModeKnobs& k) {
  return {1.0, 1 / k.gpu_ghz, 1 / k.emc_ghz, 1 / k.cpu_ghz, 1 / (k.cores * k.cpu_ghz)};
}

bool is_voltage(PowerForm form) { return form == PowerForm::kVoltage || form == PowerForm::kClocked; }

// The voltage forms' shape parameters θ: log s_cpu, log s_gpu, log s_emc (the V/f slopes), log k,
// the most CPU cores that draw power (a launch thread spins on its cores whatever the time's
// Amdahl fit says), the CPU's and the GPU's V/f knees in GHz, and for the clocked form the logit
// of w, the GPU's busy-share weight.
constexpr Eigen::Index kVoltageColumns = 10, kStallColumn = 7;
constexpr Eigen::Index kCpuKnee = 4, kGpuKnee = 5, kGpuClockWeight = 6;
Eigen::Index shape_count(PowerForm form) { return form == PowerForm::kClocked ? 7 : 6; }

// How far f lies above the knee f_k, smoothed over kKneeWidth: h·ln(1 + e^((f − f_k)/h)), 0 well
// below the knee and f − f_k well above it. A DVFS table holds a rail at its floor voltage for the
// low rates and raises it above, so V = 1 + s·that; a knee at or below the lowest clock makes V a
// straight line in f.
constexpr double kKneeWidth = 0.05;
double above_knee(double f, double knee) {
  const double x = (f - knee) / kKneeWidth;
  return x > 30 ? f - knee : kKneeWidth * std::log1p(std::exp(x));
}

// Their columns: 1, c, c·V_c (leakage); the CPU's f·V_c² times c (every online core at its clock),
// times u (the cores kept busy: the soft minimum of c and k) and times the core-seconds worked
// per second; the GPU's g·V_g² times its busy share (voltage) or times 1 − w + w·share (clocked: the
// GPU's clock tree draws while it waits); the GPU's g·V_g² times the DRAM busy share (a GPU that
// stays at its clock while its kernels stall on DRAM; 0 in the clocked form, whose 1 − w already
// lets the GPU draw while it waits); the EMC's m·V_m² alone and times its busy share (refresh and
// the memory controller draw whether or not the GPU waits on DRAM).
Eigen::RowVectorXd voltage_row(PowerForm form, const ModeKnobs& k, const TimeModel& time, const Eigen::VectorXd& th) {
  const double c = k.cores, f = k.cpu_ghz, g = k.gpu_ghz, m = k.emc_ghz;
  const ResourceTimes t = time.parts(k);
  const double vc = 1 + from_log(th(0)) * above_knee(f, th(kCpuKnee));
  const double vg = 1 + from_log(th(1)) * above_knee(g, th(kGpuKnee)), vm = 1 + from_log(th(2)) * m;
  const double cpu = f * vc * vc, gpu = g * vg * vg, emc = m * vm * vm;
  const double limit = from_log(th(3));
  const double busy = std::pow(std::pow(c, -12.0) + std::pow(limit, -12.0), -1 / 12.0);
  const double core_seconds = time.cpu_core_seconds(k) / t.total_s;
  const double w = form == PowerForm::kClocked ? logistic(th(kGpuClockWeight)) : 1;
  const double stall = form == PowerForm::kVoltage ? t.mem_s / t.total_s : 0;
  Eigen::RowVectorXd row(kVoltageColumns);
  row << 1, c, c * vc, c * cpu, busy * cpu, core_seconds * cpu, (1 - w + w * t.gpu_s / t.total_s) * gpu, stall * gpu,
      emc, t.mem_s / t.total_s * emc;
  return row;
}

Eigen::RowVectorXd power_row(PowerForm form, const ModeKnobs& k, const TimeModel* time) {
  const double c = k.cores, f = k.cpu_ghz, g = k.gpu_ghz, m = k.emc_ghz;
  Eigen::RowVectorXd row(static_cast<Eigen::Index>(parameter_count(form)));
  row.head(11) << 1, c, c * f, c * f * f, c * f * f * f, g, g * g, g * g * g, m, m * m, m * m * m;
  if (form == PowerForm::kActivity) {
    ResourceTimes t = time->parts(k);
    const double ug = t.gpu_s / t.total_s, um = t.mem_s / t.total_s, uc = t.cpu_s / t.total_s;
    row.tail(9) << ug * g, ug * g * g, ug * g * g * g, um * m, um * m * m, um * m * m * m, uc * f, uc * f * f,
        uc * f * f * f;
  }
  return row;
}

// The best of the nonlinear fits from `starts`, or from starts[only] alone (kEveryStart: from all),
// and which start it came from.
constexpr std::size_t kEveryStart = std::numeric_limits<std::size_t>::max();
struct MultiStartFit {
  Eigen::VectorXd best;
  std::size_t start = 0;
};
MultiStartFit minimise_from(const ResidualFunction& residuals, Eigen::Index count,
                            const std::vector<Eigen::VectorXd>& starts, std::size_t only) {
  MultiStartFit out;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < starts.size(); ++s) {
    if (only != kEveryStart && s != only) continue;
    LeastSquaresResult r = minimise_least_squares(residuals, count, starts[s]);
    if (r.cost < best) best = r.cost, out.best = std::move(r.theta), out.start = s;
  }
  return out;
}

}  // namespace

double combine_times(TimeForm form, double gpu_s, double mem_s, double cpu_s, double p, double q) {
  switch (form) {
    case TimeForm::kSum:
    case TimeForm::kPowerLaw: return gpu_s + mem_s + cpu_s;  // the power law's parts add up to its time
    case TimeForm::kOverlap: return cpu_s + pnorm({gpu_s, mem_s}, p);
    case TimeForm::kOverlapAll: return pnorm({gpu_s, mem_s, cpu_s}, p);
    case TimeForm::kNested:
    case TimeForm::kSaturating: return pnorm({cpu_s, pnorm({gpu_s, mem_s}, p)}, q);
  }
  return 0;
}

ModeKnobs ModeKnobs::of(const PowerMode& mode) {
  if (!mode.has_knobs()) {
    throw std::invalid_argument(fmt::format(
        "power mode '{}' lacks a knob the predictor needs (cpu_cores, cpu_freq, gpu_freq, emc_freq)", mode.label()));
  }
  ModeKnobs k{static_cast<double>(*mode.cpu_cores), static_cast<double>(*mode.cpu_freq_khz) / 1e6,
              static_cast<double>(*mode.gpu_freq_khz) / 1e6, static_cast<double>(*mode.emc_freq_khz) / 1e6};
  if (!(k.cores > 0 && k.cpu_ghz > 0 && k.gpu_ghz > 0 && k.emc_ghz > 0)) {
    throw std::invalid_argument(fmt::format(
        "power mode '{}' has a knob that is not positive; cores and every frequency must be > 0", mode.label()));
  }
  return k;
}

std::vector<std::array<double, 4>> normalised_log_knobs(std::span<const PowerMode> modes) {
  std::vector<std::array<double, 4>> x;
  for (const PowerMode& m : modes) {
    const ModeKnobs k = ModeKnobs::of(m);
    x.push_back({std::log(k.cores), std::log(k.cpu_ghz), std::log(k.gpu_ghz), std::log(k.emc_ghz)});
  }
  for (std::size_t d = 0; d < 4; ++d) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& row : x) lo = std::min(lo, row[d]), hi = std::max(hi, row[d]);
    for (auto& row : x) row[d] = hi > lo ? (row[d] - lo) / (hi - lo) : 0;
  }
  return x;
}

std::string_view to_string(TimeForm form) {
  switch (form) {
    case TimeForm::kSum: return "sum";
    case TimeForm::kOverlap: return "overlap";
    case TimeForm::kOverlapAll: return "overlap_all";
    case TimeForm::kNested: return "nested";
    case TimeForm::kSaturating: return "saturating";
    case TimeForm::kPowerLaw: return "power_law";
  }
  return "?";
}

std::string_view to_string(PowerForm form) {
  switch (form) {
    case PowerForm::kPolynomial: return "polynomial";
    case PowerForm::kActivity: return "activity";
    case PowerForm::kVoltage: return "voltage";
    case PowerForm::kClocked: return "clocked";
    case PowerForm::kPowerLaw: return "power_law";
  }
  return "?";
}

const std::vector<TimeForm>& all_time_forms() {
  static const std::vector<TimeForm> forms = {TimeForm::kSum,    TimeForm::kOverlap,    TimeForm::kOverlapAll,
                                              TimeForm::kNested, TimeForm::kSaturating, TimeForm::kPowerLaw};
  return forms;
}

const std::vector<PowerForm>& all_power_forms() {
  static const std::vector<PowerForm> forms = {PowerForm::kVoltage, PowerForm::kClocked, PowerForm::kPolynomial,
                                               PowerForm::kActivity, PowerForm::kPowerLaw};
  return forms;
}

// σ is not counted: its prior holds it at 0 unless the data need it, as a ridge would, so it does
// not keep a form from being judged on few modes (the saturating form on 10).
std::size_t parameter_count(TimeForm form) {
  return form == TimeForm::kPowerLaw ? 5 : static_cast<std::size_t>(cpu_memory_share_at(form));
}
std::size_t parameter_count(PowerForm form) {
  switch (form) {
    case PowerForm::kPolynomial: return 11;
    case PowerForm::kActivity: return 20;
    case PowerForm::kPowerLaw: return 5;
    case PowerForm::kVoltage:
    case PowerForm::kClocked: return kVoltageColumns;
  }
  return 0;
}

TimeModel TimeModel::fit(TimeForm form, std::span<const ModeKnobs> modes, std::span<const double> time_s,
                         const TimeModel* from) {
  const std::size_t np = parameter_count(form) + (form == TimeForm::kPowerLaw ? 0 : 1);  // and σ
  // Two modes suffice to make the problem determined, thanks to the weak priors below; whether a
  // form with more parameters than modes predicts well is for cross-validation to judge.
  check_sizes("time", modes.size(), time_s.size(), 2, to_string(form));
  const auto n = static_cast<Eigen::Index>(modes.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = time_s[static_cast<std::size_t>(i)];
    if (!(t > 0) || !std::isfinite(t)) {
      throw std::invalid_argument(
          fmt::format("time model: measured time {} s of mode {} is not a positive number", t, i));
    }
  }
  if (form == TimeForm::kPowerLaw) {
    TimeModel model;
    model.form_ = form;
    model.theta_ = fit_power_law(modes, time_s, -1);
    return model;
  }
  Eigen::MatrixXd x(n, 5);
  Eigen::VectorXd y(n), log_y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double t = time_s[static_cast<std::size_t>(i)];
    auto row = sum_features(modes[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < 5; ++j) x(i, j) = row[static_cast<std::size_t>(j)];
    y(i) = t;
    log_y(i) = std::log(t);
  }
  // The linear (sum) form by NNLS gives a start; terms it drops get a small positive value, so
  // their logarithm exists and the nonlinear fit can still raise them.
  Eigen::VectorXd beta = relative_nnls(x, y);
  const double typical = median_of({y.data(), y.data() + n});
  Eigen::VectorXd start(static_cast<Eigen::Index>(np));
  for (Eigen::Index j = 0; j < 5; ++j) {
    const double floor = 1e-3 * typical / x.col(j).mean();
    start(j) = std::log(std::max(beta(j), floor));
  }
  if (has_p(form)) start(5) = 0;
  if (has_q(form)) start(6) = 0;
  double most_cores = 1;
  for (const ModeKnobs& k : modes) most_cores = std::max(most_cores, k.cores);
  if (has_k(form)) start(7) = std::log(4 * most_cores);
  start(gpu_exponent_at(form)) = kUnitGpuExponent;
  const Eigen::Index share_at = cpu_memory_share_at(form);
  start(share_at) = std::log(kCpuMemoryShareStart / (1 - kCpuMemoryShareStart));

  // Weak priors keep the problem determined with few modes (log coefficients near the start,
  // exponents near p = 2, the GPU clock exponent near 1, σ near 0) without pulling a fit that the
  // data support.
  const Eigen::VectorXd prior_centre = start;
  auto residuals = [&](const Eigen::VectorXd& th, Eigen::VectorXd& r) {
    const TimeTerms terms(form, th);
    for (Eigen::Index i = 0; i < n; ++i) {
      r(i) = std::log(evaluate(terms, modes[static_cast<std::size_t>(i)]).total_s) - log_y(i);
    }
    for (Eigen::Index j = 0; j < th.size(); ++j) {
      const double w = j < 5 ? 1e-3 : 5e-3;
      r(n + j) = w * (th(j) - prior_centre(j));
    }
    r(n + share_at) = kCpuMemoryShareWeight * logistic(th(share_at));
  };
  const Eigen::Index count = n + static_cast<Eigen::Index>(np);
  TimeModel best;
  best.form_ = form;
  std::vector<Eigen::VectorXd> starts;
  if (!has_p(form)) {
    starts.push_back(start);
  } else {
    // An overlap makes the combined term smaller than the sum, so the works start larger.
    for (double p : {1.5, 3.0, 8.0}) {
      for (double grow : {1.0, 1.6}) {
        Eigen::VectorXd s = start;
        s.segment(1, 4).array() += std::log(grow);
        s(5) = std::log(p - 1);
        if (has_q(form)) s(6) = std::log(p - 1);
        if (!has_k(form)) {
          starts.push_back(s);
          continue;
        }
        for (double limit : {2.0, most_cores / 2}) {
          s(7) = std::log(limit);
          starts.push_back(s);
        }
      }
    }
  }
  MultiStartFit fitted =
      minimise_from(residuals, count, starts, from != nullptr && from->form_ == form ? from->best_start_ : kEveryStart);
  best.theta_ = std::move(fitted.best);
  best.best_start_ = fitted.start;
  return best;
}

ResourceTimes TimeModel::parts(const ModeKnobs& mode) const { return evaluate(TimeTerms(form_, theta_), mode); }
double TimeModel::cpu_core_seconds(const ModeKnobs& mode) const {
  if (form_ == TimeForm::kPowerLaw) return parts(mode).cpu_s;
  return (cpu_serial_work() + cpu_parallel_work()) * cpu_seconds_per_work(mode);
}
double TimeModel::cpu_seconds_per_work(const ModeKnobs& mode) const {
  return form_ == TimeForm::kPowerLaw ? 1 / mode.cpu_ghz : cpu_work_period(cpu_memory_share_of(theta_, form_), mode);
}
double TimeModel::cpu_memory_share() const {
  return form_ == TimeForm::kPowerLaw ? 0 : cpu_memory_share_of(theta_, form_);
}
double TimeModel::fixed_s() const { return from_log(theta_(0)); }
double TimeModel::gpu_work() const { return from_log(theta_(1)); }
double TimeModel::mem_work() const { return from_log(theta_(2)); }
double TimeModel::cpu_serial_work() const { return from_log(theta_(3)); }
double TimeModel::cpu_parallel_work() const { return from_log(theta_(4)); }
double TimeModel::cpu_speedup(double cores) const {
  const double e1 = cpu_serial_work(), e2 = cpu_parallel_work();
  const auto limit = core_limit_term(theta_, form_);
  return (e1 + e2 * per_core(1, limit)) / (e1 + e2 * per_core(cores, limit));
}
double TimeModel::overlap_p() const { return has_p(form_) ? exponent(theta_(5)) : 1; }
double TimeModel::overlap_q() const { return has_q(form_) ? exponent(theta_(6)) : 1; }
double TimeModel::gpu_clock_exponent() const {
  return form_ == TimeForm::kPowerLaw ? theta_(3) : gpu_exponent_of(theta_(gpu_exponent_at(form_)));
}

PowerModel PowerModel::fit(PowerForm form, std::span<const ModeKnobs> modes, std::span<const double> power_w,
                           const TimeModel* time, const PowerModel* from) {
  // NNLS needs no more rows than coefficients to be determined: the non-negativity constraints
  // and the minimum-norm solution keep an under-determined fit bounded, so only one mode is required.
  check_sizes("power", modes.size(), power_w.size(), 1, to_string(form));
  if (form != PowerForm::kPolynomial && form != PowerForm::kPowerLaw && time == nullptr) {
    throw std::invalid_argument(
        fmt::format("the {} power model needs the time model of the same modes", to_string(form)));
  }
  const auto n = static_cast<Eigen::Index>(modes.size());
  for (double p : power_w) {
    if (!(p > 0) || !std::isfinite(p)) {
      throw std::invalid_argument(fmt::format("power model: measured power {} W is not a positive number", p));
    }
  }
  PowerModel model;
  model.form_ = form;
  if (is_voltage(form)) {
    // Variable projection: Levenberg–Marquardt over the shape parameters, the ten linear
    // coefficients solved by NNLS (ridged on the DRAM-stall column) for each shape; weak priors
    // (slopes near 0.5 and 0.1 per GHz, the core limit near every core, w near 1/2) keep it
    // determined with few modes. The knees' prior sits at 0 GHz (straight V/f lines) with a weight
    // of 5e-2 per GHz, firm enough that 15 noisy modes do not bend a line that is straight, so a
    // knee moves only where the data need one (weights 1e-2 to 2e-1 compared in bench/README.md).
    Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(power_w.data(), n);
    auto design = [&](const Eigen::VectorXd& th) {
      Eigen::MatrixXd x(n, kVoltageColumns);
      for (Eigen::Index i = 0; i < n; ++i) x.row(i) = voltage_row(form, modes[static_cast<std::size_t>(i)], *time, th);
      return x;
    };
    double most_cores = 1;
    for (const ModeKnobs& k : modes) most_cores = std::max(most_cores, k.cores);
    const Eigen::Index shapes = shape_count(form);
    Eigen::VectorXd centre = Eigen::VectorXd::Zero(shapes);
    centre.head(4) << std::log(0.5), std::log(0.5), std::log(0.1), std::log(most_cores);
    auto residuals = [&](const Eigen::VectorXd& th, Eigen::VectorXd& r) {
      Eigen::MatrixXd x = design(th);
      Eigen::VectorXd beta = ridged_nnls(x, y, kStallColumn);
      Eigen::VectorXd fitted = x * beta;
      for (Eigen::Index i = 0; i < n; ++i) r(i) = std::log(std::max(fitted(i), 1e-12)) - std::log(y(i));
      for (Eigen::Index j = 0; j < shapes; ++j) {
        const double weight = j == kCpuKnee || j == kGpuKnee ? 5e-2 : 1e-2;
        r(n + j) = weight * (th(j) - centre(j));
      }
    };
    double cpu_lo = std::numeric_limits<double>::infinity(), cpu_hi = 0, gpu_lo = cpu_lo, gpu_hi = 0;
    for (const ModeKnobs& k : modes) {
      cpu_lo = std::min(cpu_lo, k.cpu_ghz), cpu_hi = std::max(cpu_hi, k.cpu_ghz);
      gpu_lo = std::min(gpu_lo, k.gpu_ghz), gpu_hi = std::max(gpu_hi, k.gpu_ghz);
    }
    std::vector<Eigen::VectorXd> starts;
    for (double slope : {0.1, 1.0}) {
      for (double limit : {2.0, most_cores}) {
        Eigen::VectorXd start = centre;
        start.head(3).array() = std::log(slope);
        start(3) = std::log(limit);
        // Straight lines, and for steep slopes also knees in the middle of the profiled clocks.
        for (bool kneed : {false, true}) {
          if (kneed && slope < 1) continue;
          start(kCpuKnee) = kneed ? (cpu_lo + cpu_hi) / 2 : 0;
          start(kGpuKnee) = kneed ? (gpu_lo + gpu_hi) / 2 : 0;
          starts.push_back(start);
        }
      }
    }
    MultiStartFit fitted = minimise_from(residuals, n + shapes, starts,
                                         from != nullptr && from->form_ == form ? from->best_start_ : kEveryStart);
    model.shape_ = std::move(fitted.best);
    model.best_start_ = fitted.start;
    model.coefficients_ = ridged_nnls(design(*model.shape_), y, kStallColumn);
    model.time_ = *time;
    return model;
  }
  if (form == PowerForm::kPowerLaw) {
    model.coefficients_ = fit_power_law(modes, power_w, 1);
    return model;
  }
  Eigen::MatrixXd x(n, static_cast<Eigen::Index>(parameter_count(form)));
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x.row(i) = power_row(form, modes[static_cast<std::size_t>(i)], time);
    y(i) = power_w[static_cast<std::size_t>(i)];
  }
  model.coefficients_ = relative_nnls(x, y);
  if (form == PowerForm::kActivity) model.time_ = *time;
  return model;
}

double PowerModel::power_w(const ModeKnobs& mode) const {
  if (is_voltage(form_)) return voltage_row(form_, mode, *time_, *shape_).dot(coefficients_);
  if (form_ == PowerForm::kPowerLaw) return power_law_value(coefficients_, mode, 1);
  return power_row(form_, mode, time_ ? &*time_ : nullptr).dot(coefficients_);
}

}  // namespace jetchar::analysis
