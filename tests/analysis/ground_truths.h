// Synthetic ground truths for judging the mode predictors (tests/analysis and bench/prediction_bench):
// realistic AGX-Orin-like mode grids and behaviours that are deliberately NOT the predictors' own
// forms, so a test passes only if the models generalise:
//   - GPU and memory work overlap (hard max or a p-norm whose p the models do not know);
//   - CPU launch/dispatch overhead that saturates in cores as min(cores, k) (the models use Amdahl);
//   - frequency scaling that is not pure 1/f (a latency floor that no clock removes);
//   - power = idle + per-core leakage + Σ activity · f · V(f)², where each rail's V(f) is flat at
//     V_min below a knee and linear above it (the shape of a DVFS table: NVIDIA's Orin
//     tegra234 OPP tables hold the voltage at the floor for the low rates), activity = the busy
//     share of the epoch that the resource works;
//   - optionally: V/f curves that bend upwards, GPU-rail leakage and memory-rail idle power,
//     leakage growing exponentially with voltage or with the dynamic power (self-heating);
//   - multiplicative Gaussian noise on every measurement (2 % unless told).
// Nothing here is visible to the code under test: it only sees the measured points.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
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

/// 6 core counts × 6 CPU × 10 GPU × 4 EMC = 1,440 modes, frequencies from the AGX Orin's tables
/// (CPU 729.6–2201.6 MHz, GPU 306–1300.5 MHz, EMC 665.6–3199 MHz).
inline std::vector<PowerMode> orin_grid_1440() {
  std::vector<PowerMode> modes;
  for (int cores : {1, 2, 4, 6, 8, 12})
    for (double cpu : {0.7296, 1.0368, 1.3440, 1.6512, 1.9584, 2.2016})
      for (double gpu : {0.306, 0.408, 0.510, 0.612, 0.714, 0.816, 0.918, 1.020, 1.122, 1.3005})
        for (double emc : {0.6656, 1.600, 2.133, 3.199}) modes.push_back(grid_mode(cores, cpu, gpu, emc));
  return modes;
}

/// A smaller Xavier-NX-like grid of another shape: 3 core counts × 5 CPU × 8 GPU × 3 EMC = 360.
inline std::vector<PowerMode> xavier_nx_grid_360() {
  std::vector<PowerMode> modes;
  for (int cores : {2, 4, 6})
    for (double cpu : {0.729, 1.1904, 1.4976, 1.7280, 1.9072})
      for (double gpu : {0.1147, 0.2040, 0.3060, 0.4080, 0.5100, 0.6000, 0.7523, 1.1000})
        for (double emc : {0.800, 1.331, 1.866}) modes.push_back(grid_mode(cores, cpu, gpu, emc));
  return modes;
}

/// Flat at v_min below the knee, then rising by slope·(f − knee) + curve·(f − knee)² (a curve > 0
/// bends upwards, as the top bins of a DVFS table do).
struct VfCurve {
  double v_min = 0.6, knee_ghz = 0.8, slope_v_per_ghz = 0.25, curve_v_per_ghz2 = 0.0;
  double volts(double f_ghz) const {
    const double above = std::max(0.0, f_ghz - knee_ghz);
    return v_min + slope_v_per_ghz * above + curve_v_per_ghz2 * above * above;
  }
};

struct Truth {
  std::string name;
  // time
  double gpu_work = 9.0;           // s·GHz of GPU kernels
  double mem_work = 3.0;           // s·GHz of DRAM traffic
  double mem_floor = 0.0;          // fraction of memory time that no EMC clock shortens (latency)
  double overlap_p = 4.0;          // GPU/memory overlap: p-norm exponent; infinity = hard max
  double launch_work = 1.0;        // s·GHz of CPU launch/dispatch
  double launch_serial = 0.3;      // serial fraction of it
  int launch_cores = 4;            // cores beyond this do not help
  double cpu_gpu_p = 1.0;          // overlap of launch with GPU (1 = none, sum)
  double fixed_s = 0.3;
  // power
  double idle_w = 4.5;
  double leak_w_per_core = 0.12;
  double k_cpu = 0.9, k_gpu = 11.0, k_emc = 1.6;
  VfCurve cpu_vf{0.62, 1.2, 0.30}, gpu_vf{0.60, 0.6, 0.40}, emc_vf{0.80, 1.6, 0.08};
  double cpu_busy_floor = 0.25;    // share of the epoch the launch cores are busy beyond their work
  double gpu_leak_w = 0.0;         // GPU rail leakage at V_min, growing with its voltage
  double emc_idle_w = 0.0;         // memory rail power that no activity or clock changes
  double leak_growth = 0.0;        // leakage × exp(leak_growth · (V/V_min − 1)): hotter, leakier silicon
  double thermal_w = 0.0;          // leakage × (1 + dynamic power / thermal_w): self-heating (0 = none)
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
  const double cores = *m.cpu_cores, cpu = *m.cpu_freq_khz / 1e6, gpu = *m.gpu_freq_khz / 1e6,
               emc = *m.emc_freq_khz / 1e6;
  const double gpu_s = g.gpu_work / gpu;
  const double mem_s = g.mem_work * (g.mem_floor + (1 - g.mem_floor) / emc);
  const double used = std::min<double>(cores, g.launch_cores);
  const double cpu_s = g.launch_work / cpu * (g.launch_serial + (1 - g.launch_serial) / used);
  const double device_s = pnorm2(gpu_s, mem_s, g.overlap_p);
  return {g.fixed_s + pnorm2(cpu_s, device_s, g.cpu_gpu_p), gpu_s, mem_s, cpu_s};
}

inline double truth_time_s(const PowerMode& m, const Truth& g) { return truth_parts(m, g).time_s; }

inline double truth_power_w(const PowerMode& m, const Truth& g) {
  const double cores = *m.cpu_cores, cpu = *m.cpu_freq_khz / 1e6, gpu = *m.gpu_freq_khz / 1e6,
               emc = *m.emc_freq_khz / 1e6;
  TruthParts t = truth_parts(m, g);
  const double u_gpu = t.gpu_s / t.time_s, u_mem = t.mem_s / t.time_s;
  // Launch threads spin on the busiest core; the others idle at their clock's leakage.
  const double u_cpu = std::min(1.0, t.cpu_s / t.time_s + g.cpu_busy_floor);
  const double vc = g.cpu_vf.volts(cpu), vg = g.gpu_vf.volts(gpu), vm = g.emc_vf.volts(emc);
  const double rc = vc / g.cpu_vf.v_min, rg = vg / g.gpu_vf.v_min;
  const double dynamic = g.k_cpu * u_cpu * std::min<double>(cores, g.launch_cores) * cpu * vc * vc +
                         g.k_gpu * u_gpu * gpu * vg * vg + g.k_emc * (0.3 + 0.7 * u_mem) * emc * vm * vm;
  const double leakage = (g.leak_w_per_core * cores * rc * std::exp(g.leak_growth * (rc - 1)) +
                          g.gpu_leak_w * rg * std::exp(g.leak_growth * (rg - 1))) *
                         (g.thermal_w > 0 ? 1 + dynamic / g.thermal_w : 1.0);
  return g.idle_w + g.emc_idle_w + leakage + dynamic;
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

inline std::vector<Truth> all_truths() { return {gpu_bound(), memory_bound(), launch_bound(), balanced()}; }

// Power shapes the four above do not have (the hidden check's truth is none of jetchar's forms, so
// the power model must follow the hardware, not these truths).

/// GPU-bound with V/f curves that bend upwards above a high knee (top DVFS bins), a leaky GPU
/// rail whose leakage grows exponentially with voltage, and a memory rail with idle power.
inline Truth curved_leaky() {
  Truth g = gpu_bound();
  g.name = "curved_leaky";
  g.cpu_vf = {0.58, 1.5, 0.20, 0.35};
  g.gpu_vf = {0.62, 0.85, 0.30, 0.55};
  g.emc_vf = {0.75, 2.2, 0.10, 0.0};
  g.gpu_leak_w = 1.4;
  g.leak_growth = 2.0;
  g.emc_idle_w = 0.9;
  g.idle_w = 3.2;
  return g;
}

/// Launch-bound and self-heating: leakage grows with the dynamic power (temperature), CPU V/f
/// linear from the lowest clock (no flat part), GPU flat almost to the top.
inline Truth hot_launch() {
  Truth g = launch_bound();
  g.name = "hot_launch";
  g.cpu_vf = {0.55, 0.6, 0.28, 0.0};
  g.gpu_vf = {0.65, 1.1, 0.60, 0.0};
  g.leak_w_per_core = 0.25;
  g.gpu_leak_w = 0.6;
  g.thermal_w = 12.0;
  g.cpu_busy_floor = 0.5;
  return g;
}

/// Memory-bound with a steep EMC V/f and a large EMC share of the power, a small board base.
inline Truth emc_heavy() {
  Truth g = memory_bound();
  g.name = "emc_heavy";
  g.k_emc = 4.0;
  g.emc_vf = {0.70, 1.2, 0.18, 0.04};
  g.emc_idle_w = 0.5;
  g.idle_w = 2.0;
  g.leak_growth = 1.0;
  return g;
}

/// `workload`'s work and activity on `board`'s silicon: its V/f curves, idle power and leakage
/// (what transfer between workloads on one board kind may reuse).
inline Truth on_board_of(Truth workload, const Truth& board) {
  workload.name += "_on_" + board.name;
  workload.cpu_vf = board.cpu_vf, workload.gpu_vf = board.gpu_vf, workload.emc_vf = board.emc_vf;
  workload.idle_w = board.idle_w, workload.leak_w_per_core = board.leak_w_per_core;
  workload.gpu_leak_w = board.gpu_leak_w, workload.emc_idle_w = board.emc_idle_w;
  workload.leak_growth = board.leak_growth, workload.thermal_w = board.thermal_w;
  return workload;
}

inline std::vector<Truth> power_shape_truths() { return {curved_leaky(), hot_launch(), emc_heavy()}; }

/// An Orin-Nano-like grid of a third shape: 4 core counts × 7 CPU × 5 GPU × 3 EMC = 420 modes.
inline std::vector<PowerMode> orin_nano_grid_420() {
  std::vector<PowerMode> modes;
  for (int cores : {1, 2, 4, 6})
    for (double cpu : {0.1152, 0.4224, 0.7296, 0.9216, 1.1136, 1.3056, 1.5104})
      for (double gpu : {0.306, 0.408, 0.510, 0.5625, 0.625})
        for (double emc : {0.6656, 1.600, 2.133}) modes.push_back(grid_mode(cores, cpu, gpu, emc));
  return modes;
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
