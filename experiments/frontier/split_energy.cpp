#include "experiments/frontier/split_energy.h"

namespace jetchar::experiments {

void attach_step_energy(std::vector<SplitMeasurement>& splits, jetson::measurement::MeasurementSession& session) {
  for (auto& split : splits) {
    const auto& outcome = split.outcome;
    if (outcome.status != ProbeStatus::kFits || !outcome.timed_begin_ns || !outcome.timed_end_ns ||
        outcome.timed_steps < 1) {
      continue;
    }
    const auto energy = session.energy(*outcome.timed_begin_ns, *outcome.timed_end_ns);
    if (!energy.onboard || !energy.onboard->total_energy_mj) continue;
    split.step_energy_j = *energy.onboard->total_energy_mj / 1000.0 / static_cast<double>(outcome.timed_steps);
    split.energy_source = energy.onboard->total.label;
  }
}

}  // namespace jetchar::experiments
