// Synthetic ground truths for judging the mode predictors (tests/analysis and bench/prediction_bench):
// realistic AGX-Orin-like mode grids and behaviours that are deliberately NOT the predictors' own
// forms, so a test passes only if the models generalise:
//   - GPU and memory work overlap (hard max or a p-norm whose p the models do not know);
//   - CPU launch/dispatch overhead that saturates in cores as min(cores, k) (the models use Amdahl);
//   - frequency scaling that is not pure 1/f (a latency floor that no clock removes);
//   - power = idle + per-core leakage + Σ activity · f · V(f)², where each rail's V(f) is flat at
//     V_min below a knee and linear above it (the shape of a DVFS table: NVIDIA's Orin
//     tegra234 OPP tables hold the voltage at the floor for the low rates), activity = the busy
//     share of the epoch that the resource works; and one truth (convex_vf) with convex V/f
//     curves, leakage exponential in V and CPU power from the core-seconds worked;
//   - multiplicative Gaussian noise on every measurement (2 % unless told);
//   - random_truth(seed): truths drawn from a wider family of the same kinds (other shapes too).
// Nothing here is visible to the code under test: it only sees the measured points.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/run_record.h"

namespace jetchar::analysis::testing {

inline PowerMode grid_mode(int cores, double cpu_ghz, double gpu_ghz, double emc_ghz) {
  PowerMode m;
  m.cpu_cores = cores;
  m.cpu_freq_khz = static_cast<std::int64_t>(std::llround(cpu_ghz * 1e6));
  m.gpu_freq_khz = static_cast<std::int64_t>(std::llround(gpu_ghz * 1e6));
  m.emc_freq_khz = static_cast<std::int64_t>(std::llround(emc_ghz * 1e6));
  return m;
}

/// Every combination of the given core counts and CPU, GPU and EMC clocks (GHz), cores outermost
/// and EMC innermost.
inline std::vector<PowerMode> grid_of(std::initializer_list<int> cores, std::initializer_list<double> cpu_ghz,
                                      std::initializer_list<double> gpu_ghz, std::initializer_list<double> emc_ghz) {
  std::vector<PowerMode> modes;
  for (int c : cores)
    for (double cpu : cpu_ghz)
      for (double gpu : gpu_ghz)
        for (double emc : emc_ghz) modes.push_back(grid_mode(c, cpu, gpu, emc));
  return modes;
}

/// 6 core counts × 6 CPU × 10 GPU × 4 EMC = 1,440 modes, frequencies from the AGX Orin's tables
/// (CPU 729.6–2201.6 MHz, GPU 306–1300.5 MHz, EMC 665.6–3199 MHz).
inline std::vector<PowerMode> orin_grid_1440() {
  return grid_of({1, 2, 4, 6, 8, 12}, {0.7296, 1.0368, 1.3440, 1.6512, 1.9584, 2.2016},
                 {0.306, 0.408, 0.510, 0.612, 0.714, 0.816, 0.918, 1.020, 1.122, 1.3005},
                 {0.6656, 1.600, 2.133, 3.199});
}

/// The same shape over the AGX Orin's whole clock ranges, as its kernel lists them
/// (tests/fixtures/boards/agx-orin-r36/board.manifest): CPU 115.2–2201.6 MHz, GPU 306–1300.5 MHz
/// and the EMC's four rates, 204–3199 MHz; 6 × 6 × 10 × 4 = 1,440 modes.
inline std::vector<PowerMode> orin_full_range_grid_1440() {
  return grid_of({1, 2, 4, 6, 8, 12}, {0.1152, 0.4224, 0.8064, 1.1904, 1.6896, 2.2016},
                 {0.306, 0.408, 0.510, 0.612, 0.714, 0.816, 0.918, 1.020, 1.122, 1.3005},
                 {0.204, 0.6656, 2.133, 3.199});
}

/// A smaller Xavier-NX-like grid of another shape: 3 core counts × 5 CPU × 8 GPU × 3 EMC = 360.
inline std::vector<PowerMode> xavier_nx_grid_360() {
  return grid_of({2, 4, 6}, {0.729, 1.1904, 1.4976, 1.7280, 1.9072},
                 {0.1147, 0.2040, 0.3060, 0.4080, 0.5100, 0.6000, 0.7523, 1.1000}, {0.800, 1.331, 1.866});
}

struct VfCurve {
  double v_min = 0.6, knee_ghz = 0.8, slope_v_per_ghz = 0.25;
  double curvature_v_per_ghz2 = 0;  // > 0: a convex curve, rising as f² on top of the line
  double volts(double f_ghz) const {
    return std::max(v_min, v_min + slope_v_per_ghz * (f_ghz - knee_ghz)) + curvature_v_per_ghz2 * f_ghz * f_ghz;
  }
};

struct Truth {
  std::string name;
  // time
  double gpu_work = 9.0;       // s·GHz of GPU kernels
  double mem_work = 3.0;       // s·GHz of DRAM traffic
  double mem_floor = 0.0;      // fraction of memory time that no EMC clock shortens (latency)
  double overlap_p = 4.0;      // GPU/memory overlap: p-norm exponent; infinity = hard max
  double launch_work = 1.0;    // s·GHz of CPU launch/dispatch
  double launch_serial = 0.3;  // serial fraction of it
  int launch_cores = 4;        // cores beyond this do not help
  double cpu_gpu_p = 1.0;      // overlap of launch with GPU (1 = none, sum)
  double fixed_s = 0.3;
  // power
  double idle_w = 4.5;
  double leak_w_per_core = 0.12;
  double k_cpu = 0.9, k_gpu = 11.0, k_emc = 1.6;
  VfCurve cpu_vf{0.62, 1.2, 0.30}, gpu_vf{0.60, 0.6, 0.40}, emc_vf{0.80, 1.6, 0.08};
  // 0: per-core leakage grows as V / V_min; > 0: as exp((V − V_min) / this), the exponential rise
  // of subthreshold leakage with the supply voltage.
  double leak_volts_scale = 0;
  // false: the launch threads spin on min(cores, launch_cores) cores; true: the CPU draws dynamic
  // power for the core-seconds it works (the launch work, whatever the cores) plus 10 % of every
  // online core's for its clock.
  bool cpu_power_from_core_seconds = false;
  // The share of the launch work that waits on DRAM (scales as 1/f_emc instead of 1/f_cpu): CPU
  // code that misses its caches. None of the predictor's time forms has it.
  double launch_mem_share = 0;
  // Share of the GPU's switching power drawn at its clock while it waits (clock tree, idle SMs).
  double gpu_idle_draw = 0;
  // Share of the EMC's switching power drawn whether or not DRAM is busy (refresh, controller),
  // and the lowest busy share a launch thread's core counts as (spin-waiting).
  double emc_idle_draw = 0.3, cpu_busy_floor = 0.25;
  // Voltages rounded up to this step (V): a DVFS table's discrete rails; 0 = continuous.
  double volt_step = 0;
  double noise = 0.02;
};

inline double pnorm2(double a, double b, double p) {
  if (std::isinf(p)) return std::max(a, b);
  double m = std::max(a, b);
  if (m <= 0) return 0;
  return m * std::pow(std::pow(a / m, p) + std::pow(b / m, p), 1 / p);
}

struct TruthParts {
  double time_s, gpu_s, mem_s, cpu_s;
};

inline TruthParts truth_parts(const PowerMode& m, const Truth& g) {
  const double cores = *m.cpu_cores, cpu = static_cast<double>(*m.cpu_freq_khz) / 1e6,
               gpu = static_cast<double>(*m.gpu_freq_khz) / 1e6, emc = static_cast<double>(*m.emc_freq_khz) / 1e6;
  const double gpu_s = g.gpu_work / gpu;
  const double mem_s = g.mem_work * (g.mem_floor + (1 - g.mem_floor) / emc);
  const double used = std::min<double>(cores, g.launch_cores);
  const double launch_clock = (1 - g.launch_mem_share) / cpu + g.launch_mem_share / emc;
  const double cpu_s = g.launch_work * launch_clock * (g.launch_serial + (1 - g.launch_serial) / used);
  const double device_s = pnorm2(gpu_s, mem_s, g.overlap_p);
  return {g.fixed_s + pnorm2(cpu_s, device_s, g.cpu_gpu_p), gpu_s, mem_s, cpu_s};
}

inline double truth_time_s(const PowerMode& m, const Truth& g) { return truth_parts(m, g).time_s; }

inline double truth_power_w(const PowerMode& m, const Truth& g) {
  const double cores = *m.cpu_cores, cpu = static_cast<double>(*m.cpu_freq_khz) / 1e6,
               gpu = static_cast<double>(*m.gpu_freq_khz) / 1e6, emc = static_cast<double>(*m.emc_freq_khz) / 1e6;
  TruthParts t = truth_parts(m, g);
  const double u_gpu = t.gpu_s / t.time_s, u_mem = t.mem_s / t.time_s;
  auto stepped = [&](double v) { return g.volt_step > 0 ? std::ceil(v / g.volt_step) * g.volt_step : v; };
  const double vc = stepped(g.cpu_vf.volts(cpu)), vg = stepped(g.gpu_vf.volts(gpu)), vm = stepped(g.emc_vf.volts(emc));
  const double leak =
      g.leak_volts_scale > 0 ? std::exp((vc - g.cpu_vf.v_min) / g.leak_volts_scale) : vc / g.cpu_vf.v_min;
  // Launch threads spin on the busiest core; the others idle at their clock's leakage. Or the
  // cores draw for the core-seconds of launch work they do per second of the epoch.
  const double busy_cores = g.cpu_power_from_core_seconds ? 0.1 * cores + g.launch_work / cpu / t.time_s
                                                          : std::min(1.0, t.cpu_s / t.time_s + g.cpu_busy_floor) *
                                                                std::min<double>(cores, g.launch_cores);
  const double gpu_share = g.gpu_idle_draw + (1 - g.gpu_idle_draw) * u_gpu;
  const double emc_share = g.emc_idle_draw + (1 - g.emc_idle_draw) * u_mem;
  return g.idle_w + g.leak_w_per_core * cores * leak + g.k_cpu * busy_cores * cpu * vc * vc +
         g.k_gpu * gpu_share * gpu * vg * vg + g.k_emc * emc_share * emc * vm * vm;
}

/// GPU-bound training (ResNet-like): GPU kernels dominate, memory overlaps with them.
inline Truth gpu_bound() {
  Truth g;
  g.name = "gpu_bound";
  return g;
}

/// Memory-bound: DRAM time rivals GPU time, hard-max overlap (a roofline), with a latency floor.
inline Truth memory_bound() {
  Truth g;
  g.name = "memory_bound";
  g.gpu_work = 4.0;
  g.mem_work = 6.0;
  g.mem_floor = 0.15;
  g.overlap_p = INFINITY;
  g.launch_work = 0.6;
  return g;
}

/// CPU/launch-bound (LeNet-like): tiny kernels, the CPU's dispatch rate sets the pace; launch
/// overlaps with GPU work (asynchronous launches) and saturates at 2 cores.
inline Truth launch_bound() {
  Truth g;
  g.name = "launch_bound";
  g.gpu_work = 1.2;
  g.mem_work = 0.6;
  g.launch_work = 7.0;
  g.launch_serial = 0.55;
  g.launch_cores = 2;
  g.cpu_gpu_p = 3.0;
  g.fixed_s = 0.2;
  g.k_gpu = 9.0;
  return g;
}

/// Balanced: CPU, GPU and memory all matter; launch saturates at 6 cores and adds to device time.
inline Truth balanced() {
  Truth g;
  g.name = "balanced";
  g.gpu_work = 4.0;
  g.mem_work = 2.5;
  g.overlap_p = 2.0;
  g.launch_work = 3.5;
  g.launch_serial = 0.2;
  g.launch_cores = 6;
  g.cpu_gpu_p = 1.5;
  return g;
}

/// Convex V/f curves without a flat part, leakage rising exponentially with voltage, CPU power
/// from the core-seconds worked: a power that none of the other truths (nor a predictor form) has,
/// on a workload between balanced and launch-bound (launch saturates at 3 cores, overlaps GPU work).
inline Truth convex_vf() {
  Truth g;
  g.name = "convex_vf";
  g.gpu_work = 6.0;
  g.mem_work = 3.5;
  g.mem_floor = 0.05;
  g.overlap_p = 3.0;
  g.launch_work = 2.5;
  g.launch_serial = 0.35;
  g.launch_cores = 3;
  g.cpu_gpu_p = 2.0;
  g.fixed_s = 0.25;
  g.idle_w = 5.0;
  g.leak_w_per_core = 0.08;
  g.k_cpu = 1.1, g.k_gpu = 8.0, g.k_emc = 1.4;
  g.cpu_vf = {0.55, 0.0, 0.05, 0.07};
  g.gpu_vf = {0.50, 0.0, 0.10, 0.30};
  g.emc_vf = {0.70, 0.0, 0.02, 0.015};
  g.leak_volts_scale = 0.25;
  g.cpu_power_from_core_seconds = true;
  return g;
}

inline std::vector<Truth> all_truths() {
  return {gpu_bound(), memory_bound(), launch_bound(), balanced(), convex_vf()};
}

/// A truth drawn at random from a wider family than the named ones: any mix of GPU, DRAM and
/// launch work, any overlap from a sum to a roofline, launch code partly waiting on DRAM, V/f
/// curves with or without a knee, straight or convex (rising 0.2-0.5 V to the top clock), stepped
/// like a DVFS table, leakage linear or exponential in V, CPU power from spinning threads or from
/// core-seconds, GPU and EMC drawing at their clocks while idle. It checks that what the predictor
/// reaches on the named truths is not owed to their particular choices (prediction_bench --random).
inline Truth random_truth(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto log_uniform = [&](double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); };
  auto one_of = [&](std::initializer_list<double> v) {
    return *(v.begin() + std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng));
  };
  Truth g;
  g.name = "random" + std::to_string(seed);
  g.gpu_work = log_uniform(0.5, 12);
  g.mem_work = log_uniform(0.3, 7);
  g.mem_floor = uniform(0, 0.3);
  g.overlap_p = one_of({1.0, 1.5, 2.0, 3.0, 6.0, INFINITY});
  g.launch_work = log_uniform(0.3, 8);
  g.launch_serial = uniform(0.1, 0.7);
  g.launch_cores = static_cast<int>(one_of({1, 2, 3, 4, 6, 8, 12}));
  g.cpu_gpu_p = one_of({1.0, 1.5, 2.0, 3.0, INFINITY});
  g.fixed_s = log_uniform(0.03, 0.6);
  g.launch_mem_share = one_of({0.0, 0.0, uniform(0.05, 0.4)});
  g.idle_w = uniform(3, 7);
  g.leak_w_per_core = uniform(0.04, 0.25);
  g.k_cpu = log_uniform(0.4, 1.6), g.k_gpu = log_uniform(4, 16), g.k_emc = log_uniform(0.6, 2.5);
  // A V/f curve from v_min to v_min + 0.2-0.5 V at the top clock (a range chosen to span the named
  // truths' swings, not taken from a board), flat below a knee or not, its rise split between a
  // line and an f² part.
  auto curve = [&](double v_min, double f_max_ghz) {
    VfCurve c;
    c.v_min = v_min;
    c.knee_ghz = one_of({0.0, uniform(0, 0.7 * f_max_ghz)});
    const double swing = uniform(0.2, 0.5), convex = one_of({0.0, uniform(0, 1)});
    c.slope_v_per_ghz = (1 - convex) * swing / (f_max_ghz - c.knee_ghz);
    c.curvature_v_per_ghz2 = convex * swing / (f_max_ghz * f_max_ghz);
    return c;
  };
  g.cpu_vf = curve(uniform(0.55, 0.7), 2.2), g.gpu_vf = curve(uniform(0.5, 0.65), 1.3);
  g.emc_vf = curve(uniform(0.7, 0.85), 3.2);
  g.leak_volts_scale = one_of({0.0, uniform(0.2, 0.45)});
  g.cpu_power_from_core_seconds = uniform(0, 1) < 0.3;
  g.gpu_idle_draw = one_of({0.0, uniform(0.0, 0.3)});
  g.emc_idle_draw = uniform(0.1, 0.6), g.cpu_busy_floor = uniform(0, 0.4);
  g.volt_step = one_of({0.0, 0.0125, 0.025});
  return g;
}

/// The same kind of workload with other work: more GPU work, less DRAM traffic, more launch
/// overhead, a shorter fixed part and other switching power (named with a prime): a reference a
/// workload is adapted from (analysis/transfer_predictor.h).
inline Truth with_other_work(Truth t) {
  t.name += "'";
  t.gpu_work *= 1.6, t.mem_work *= 0.7, t.launch_work *= 1.3, t.fixed_s *= 0.8;
  t.k_gpu *= 0.85, t.k_cpu *= 1.2;
  return t;
}

/// One measured point per mode: true time and power, each times (1 + noise·N(0, 1)), seeded.
inline std::vector<ConfigPoint> measure(const std::vector<PowerMode>& modes, const Truth& g, std::uint64_t seed,
                                        double noise) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::vector<ConfigPoint> points;
  for (const PowerMode& m : modes) {
    ConfigPoint p;
    p.key.workload = g.name;
    p.key.mode = m;
    p.time_s = truth_time_s(m, g) * (1 + noise * n01(rng));
    p.power_w = truth_power_w(m, g) * (1 + noise * n01(rng));
    p.energy_j = *p.power_w * p.time_s;
    p.samples = 1;
    points.push_back(p);
  }
  return points;
}

inline std::vector<ConfigPoint> measure(const std::vector<PowerMode>& modes, const Truth& g, std::uint64_t seed) {
  return measure(modes, g, seed, g.noise);
}

}  // namespace jetchar::analysis::testing
