// Ground truths written apart from ground_truths.h's Truth family, each with one behaviour that
// neither that family nor a predictor form has, and never used to tune a form (their figures in
// bench/README.md were measured once the predictor was fixed): whether what the predictor reaches
// carries over to truths built otherwise. Frequencies in GHz; the voltage of each rail is flat
// at a floor below a knee and linear above, as in ground_truths.h.
//   floor_contention  GPU time with a part no GPU clock shortens, a roofline with DRAM, and launch
//                     work that slows by 1.5 % per extra online core (cache and lock contention);
//   regulator         the board's input power behind regulators whose efficiency rises with load
//                     (78 % to 92 %), so every rail's draw is scaled by a factor that depends on all;
//   loader            data-loader workers on 6 CPU cores working in parallel with the GPU step,
//                     whichever is slower setting the pace (a smooth maximum), loader time f^-0.9;
//   sublinear         GPU time as f^-0.75 and DRAM time as f^-0.9, a 25 mV-stepped V/f table and
//                     GPU-rail leakage exponential in the GPU voltage;
//   thermal           leakage that rises with the die temperature, which the power itself sets
//                     (a fixed point of power and temperature);
//   spin              launch-bound code whose CPU work is partly DRAM-bound, every online core
//                     drawing a little for scheduler ticks, and a GPU rail with a constant floor.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/mode_model.h"

namespace jetchar::analysis::testing {

struct TimeAndPower {
  double time_s = 0, power_w = 0;
};

struct HeldOutTruth {
  std::string name;
  TimeAndPower (*at)(const ModeKnobs& k) = nullptr;
};

namespace held_out_detail {

inline double volts(double f_ghz, double v_floor, double knee_ghz, double slope_v_per_ghz) {
  return std::max(v_floor, v_floor + slope_v_per_ghz * (f_ghz - knee_ghz));
}
inline double smooth_max(double a, double b, double p) { return std::pow(std::pow(a, p) + std::pow(b, p), 1 / p); }

inline TimeAndPower floor_contention(const ModeKnobs& k) {
  const double gpu = 7 * (0.2 + 0.8 / k.gpu_ghz), mem = 3.5 / k.emc_ghz;
  const double cpu = 2.0 / k.cpu_ghz * (0.3 + 0.7 / std::min(k.cores, 4.0)) * (1 + 0.015 * (k.cores - 1));
  const double t = 0.2 + std::max(gpu, mem) + 0.5 * cpu;
  const double vc = volts(k.cpu_ghz, 0.6, 0, 0.18), vg = volts(k.gpu_ghz, 0.55, 0, 0.35),
               vm = volts(k.emc_ghz, 0.75, 0, 0.06);
  const double p = 5 + 0.1 * k.cores * vc / 0.6 +
                   0.8 * std::min(k.cores, 4.0) * std::min(1.0, cpu / t + 0.2) * k.cpu_ghz * vc * vc +
                   10 * (gpu / t) * k.gpu_ghz * vg * vg + 1.8 * (0.3 + 0.7 * mem / t) * k.emc_ghz * vm * vm;
  return {t, p};
}

inline TimeAndPower regulator(const ModeKnobs& k) {
  const double gpu = 4 / k.gpu_ghz, mem = 2.5 / k.emc_ghz;
  const double cpu = 3.5 / k.cpu_ghz * (0.2 + 0.8 / std::min(k.cores, 6.0));
  const double t = 0.3 + smooth_max(cpu, smooth_max(gpu, mem, 2), 1.5);
  const double vc = volts(k.cpu_ghz, 0.62, 1.2, 0.3), vg = volts(k.gpu_ghz, 0.6, 0.6, 0.4),
               vm = volts(k.emc_ghz, 0.8, 1.6, 0.08);
  const double p = 4.5 + 0.12 * k.cores * vc / 0.62 +
                   0.9 * std::min(k.cores, 6.0) * std::min(1.0, cpu / t + 0.25) * k.cpu_ghz * vc * vc +
                   11 * (gpu / t) * k.gpu_ghz * vg * vg + 1.6 * (0.3 + 0.7 * mem / t) * k.emc_ghz * vm * vm;
  const double efficiency = 0.78 + 0.14 * p / (p + 8);
  return {t, p / efficiency};
}

inline TimeAndPower loader(const ModeKnobs& k) {
  const double workers = std::min(k.cores, 6.0);
  const double load_cpu = 6.0 / (std::pow(k.cpu_ghz, 0.9) * workers);
  const double load = load_cpu + 0.4 / k.emc_ghz;
  const double gpu = 5 / k.gpu_ghz, mem = 2 / k.emc_ghz, launch = 0.8 / k.cpu_ghz;
  const double step = smooth_max(gpu, mem, 3) + launch;
  const double t = 0.15 + smooth_max(load, step, 4);
  const double vc = volts(k.cpu_ghz, 0.6, 0.9, 0.28), vg = volts(k.gpu_ghz, 0.58, 0.5, 0.42),
               vm = volts(k.emc_ghz, 0.78, 1.2, 0.07);
  const double busy_cores = workers * load_cpu / t + launch / t;
  const double p = 4.8 + 0.1 * k.cores * vc / 0.6 + 0.85 * busy_cores * k.cpu_ghz * vc * vc +
                   9 * (gpu / t) * k.gpu_ghz * vg * vg + 1.5 * (0.25 + 0.75 * mem / t) * k.emc_ghz * vm * vm;
  return {t, p};
}

inline TimeAndPower sublinear(const ModeKnobs& k) {
  const double gpu = 6 * std::pow(k.gpu_ghz, -0.75), mem = 3 * std::pow(k.emc_ghz, -0.9);
  const double device = smooth_max(gpu, mem, 1.3);
  const double cpu = 1.5 / k.cpu_ghz * (0.4 + 0.6 / std::min(k.cores, 3.0));
  const double t = 0.25 + std::max(cpu, device) + 0.3 * std::min(cpu, device);
  const auto stepped = [](double v) { return std::ceil(v / 0.025) * 0.025; };
  const double vc = stepped(volts(k.cpu_ghz, 0.6, 1.0, 0.3)), vg = stepped(volts(k.gpu_ghz, 0.55, 0.4, 0.45)),
               vm = stepped(volts(k.emc_ghz, 0.8, 1.5, 0.07));
  const double p = 5.2 + 0.12 * k.cores * vc / 0.6 + 1.5 * std::exp((vg - 0.55) / 0.3) +
                   0.9 * std::min(k.cores, 3.0) * std::min(1.0, cpu / t + 0.3) * k.cpu_ghz * vc * vc +
                   10 * (gpu / t) * k.gpu_ghz * vg * vg + 1.7 * (0.35 + 0.65 * mem / t) * k.emc_ghz * vm * vm;
  return {t, p};
}

inline TimeAndPower thermal(const ModeKnobs& k) {
  const double gpu = 8 / k.gpu_ghz, mem = 3 / k.emc_ghz;
  const double cpu = 1.2 / k.cpu_ghz * (0.3 + 0.7 / std::min(k.cores, 4.0));
  const double t = 0.3 + smooth_max(gpu, mem, 4) + cpu;
  const double vc = volts(k.cpu_ghz, 0.62, 1.1, 0.3), vg = volts(k.gpu_ghz, 0.6, 0.6, 0.4),
               vm = volts(k.emc_ghz, 0.8, 1.6, 0.08);
  const double dynamic = 0.9 * std::min(k.cores, 4.0) * std::min(1.0, cpu / t + 0.25) * k.cpu_ghz * vc * vc +
                         12 * (gpu / t) * k.gpu_ghz * vg * vg + 1.6 * (0.3 + 0.7 * mem / t) * k.emc_ghz * vm * vm;
  // Die temperature 30 °C + 1.6 °C/W; leakage doubles every ~28 °C. Iterated to its fixed point.
  double p = 4 + dynamic;
  for (int i = 0; i < 30; ++i) {
    const double celsius = 30 + 1.6 * p;
    p = 4 + dynamic + (0.08 * k.cores + 1.2 * vg) * std::exp(0.025 * (celsius - 30));
  }
  return {t, p};
}

inline TimeAndPower spin(const ModeKnobs& k) {
  const double gpu = 1.0 / k.gpu_ghz, mem = 0.7 / k.emc_ghz;
  const double cpu = 6.5 * (0.7 / k.cpu_ghz + 0.3 / k.emc_ghz) * (0.5 + 0.5 / std::min(k.cores, 2.0));
  const double t = 0.2 + smooth_max(cpu, gpu + mem, 2.5);
  const double vc = volts(k.cpu_ghz, 0.6, 0.0, 0.15), vg = volts(k.gpu_ghz, 0.6, 0.7, 0.4),
               vm = volts(k.emc_ghz, 0.8, 1.8, 0.1);
  const double p =
      4.2 + 0.15 * k.cores * vc / 0.6 +
      (0.9 * std::min(k.cores, 2.0) * std::min(1.0, cpu / t + 0.3) + 0.05 * k.cores) * k.cpu_ghz * vc * vc + 0.8 +
      8 * (gpu / t) * k.gpu_ghz * vg * vg + 2.0 * (0.3 + 0.7 * (mem + 0.2 * cpu) / t) * k.emc_ghz * vm * vm;
  return {t, p};
}

}  // namespace held_out_detail

inline std::vector<HeldOutTruth> held_out_truths() {
  using namespace held_out_detail;
  return {{"floor_contention", floor_contention},
          {"regulator", regulator},
          {"loader", loader},
          {"sublinear", sublinear},
          {"thermal", thermal},
          {"spin", spin}};
}

/// One measured point per mode, as ground_truths.h's measure: true time and power, each times
/// (1 + noise·N(0, 1)), seeded.
inline std::vector<ConfigPoint> measure(const std::vector<PowerMode>& modes, const HeldOutTruth& truth,
                                        std::uint64_t seed, double noise) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01(0.0, 1.0);
  std::vector<ConfigPoint> points;
  for (const PowerMode& m : modes) {
    const TimeAndPower v = truth.at(ModeKnobs::of(m));
    ConfigPoint p;
    p.key.workload = truth.name;
    p.key.mode = m;
    p.time_s = v.time_s * (1 + noise * n01(rng));
    p.power_w = v.power_w * (1 + noise * n01(rng));
    p.energy_j = *p.power_w * p.time_s;
    p.samples = 1;
    points.push_back(p);
  }
  return points;
}

}  // namespace jetchar::analysis::testing
