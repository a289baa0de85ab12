#include "results/epoch_medians.h"

#include <algorithm>
#include <vector>

namespace jetchar::results {

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

EpochMedians warm_epoch_medians(const proto::RunResult& result) {
  EpochMedians medians;
  const bool has_warm = std::any_of(result.epochs().begin(), result.epochs().end(),
                                    [](const proto::EpochResult& e) { return e.epoch() > 0; });
  std::vector<double> e2e, stall, compute, energy;
  for (const auto& e : result.epochs()) {
    if (has_warm && e.epoch() == 0) continue;
    e2e.push_back(e.e2e_s());
    stall.push_back(e.stall_s());
    compute.push_back(e.compute_s());
    if (e.has_energy_j()) {
      energy.push_back(e.energy_j());
    } else if (e.has_average_power_w()) {
      energy.push_back(e.average_power_w() * e.e2e_s());
    }
  }
  medians.e2e_s = median(e2e);
  medians.stall_s = median(stall);
  medians.compute_s = median(compute);
  medians.energy_j = median(energy);
  medians.epochs = e2e.size();
  medians.cold_only = !has_warm && !e2e.empty();
  return medians;
}

}  // namespace jetchar::results
