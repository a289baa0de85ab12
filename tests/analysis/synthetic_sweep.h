// Synthetic sweeps with a known ground truth, for the analysis tests: a grid of power modes like an
// Orin's, epoch time = a/(cores·f_cpu) + b/f_gpu + c/f_emc + d and a power that grows with the
// clocks, with seeded multiplicative noise. Nothing here is known to the code under test.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "analysis/config_point.h"
#include "analysis/run_record.h"

namespace jetchar::analysis::testing {

struct GroundTruth {
  double cpu_work = 6.0;  // s·GHz·core
  double gpu_work = 9.0;  // s·GHz
  double mem_work = 4.0;  // s·GHz
  double fixed_s = 1.5;
  double noise = 0.01;  // relative standard deviation
};

inline PowerMode make_mode(int cores, double cpu_ghz, double gpu_ghz, double emc_ghz) {
  PowerMode m;
  m.cpu_cores = cores;
  m.cpu_freq_khz = static_cast<std::int64_t>(cpu_ghz * 1e6);
  m.gpu_freq_khz = static_cast<std::int64_t>(gpu_ghz * 1e6);
  m.emc_freq_khz = static_cast<std::int64_t>(emc_ghz * 1e6);
  return m;
}

inline std::vector<PowerMode> orin_like_grid() {
  std::vector<PowerMode> modes;
  for (int cores : {2, 4, 8, 12})
    for (double cpu : {0.73, 1.2, 1.5, 2.2})
      for (double gpu : {0.3, 0.6, 0.9, 1.3})
        for (double emc : {0.665, 2.133, 3.199}) modes.push_back(make_mode(cores, cpu, gpu, emc));
  return modes;
}

inline double true_time_s(const PowerMode& m, const GroundTruth& g) {
  const double cores = *m.cpu_cores, cpu = static_cast<double>(*m.cpu_freq_khz) / 1e6,
               gpu = static_cast<double>(*m.gpu_freq_khz) / 1e6, emc = static_cast<double>(*m.emc_freq_khz) / 1e6;
  return g.cpu_work / (cores * cpu) + g.gpu_work / gpu + g.mem_work / emc + g.fixed_s;
}

inline double true_power_w(const PowerMode& m) {
  const double cores = *m.cpu_cores, cpu = static_cast<double>(*m.cpu_freq_khz) / 1e6,
               gpu = static_cast<double>(*m.gpu_freq_khz) / 1e6, emc = static_cast<double>(*m.emc_freq_khz) / 1e6;
  return 4.0 + 0.6 * cores * cpu + 7.0 * gpu + 1.2 * emc;
}

/// One aggregated point per mode.
inline std::vector<ConfigPoint> synthetic_points(const std::vector<PowerMode>& modes, const GroundTruth& g,
                                                 std::uint64_t seed, const std::string& workload = "resnet18") {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, g.noise);
  std::vector<ConfigPoint> points;
  for (const PowerMode& m : modes) {
    ConfigPoint p;
    p.key.workload = workload;
    p.key.mode = m;
    p.time_s = true_time_s(m, g) * noise(rng);
    p.power_w = true_power_w(m) * noise(rng);
    p.energy_j = *p.power_w * p.time_s;
    p.samples = 1;
    points.push_back(p);
  }
  return points;
}

}  // namespace jetchar::analysis::testing
