#include "experiments/target_outcome.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace jetchar::experiments {

std::optional<double> dev_f1(const proto::EpochResult& epoch) {
  if (epoch.has_eval_entity_f1()) return epoch.eval_entity_f1();
  if (epoch.has_eval_squad_f1()) return epoch.eval_squad_f1();
  return std::nullopt;
}

void check_target_f1(double target_f1) {
  if (!(target_f1 > 0 && target_f1 <= 1)) {
    throw std::invalid_argument(fmt::format(
        "target F1 {} is not in (0, 1]: give the dev F1 as a fraction (0.885 for the write-ups' 88.5)", target_f1));
  }
}

proto::TargetOutcome target_outcome(const google::protobuf::RepeatedPtrField<proto::EpochResult>& epochs,
                                    double target_f1) {
  check_target_f1(target_f1);
  proto::TargetOutcome outcome;
  outcome.set_target_f1(target_f1);
  double time_s = 0;
  double energy_j = 0;
  bool energy_known = true;
  for (const auto& epoch : epochs) {
    const auto f1 = dev_f1(epoch);
    if (f1) outcome.set_best_f1(outcome.has_best_f1() ? std::max(outcome.best_f1(), *f1) : *f1);
    if (outcome.has_epoch()) continue;  // reached earlier: only the best F1 goes on
    time_s += epoch.e2e_s();
    if (epoch.has_energy_j()) {
      energy_j += epoch.energy_j();
    } else {
      energy_known = false;
    }
    if (f1 && *f1 >= target_f1) {
      outcome.set_epoch(epoch.epoch());
      outcome.set_time_s(time_s);
      if (energy_known) outcome.set_energy_j(energy_j);
      if (epoch.has_start_s()) outcome.set_wall_s(epoch.start_s() + epoch.e2e_s());
    }
  }
  return outcome;
}

}  // namespace jetchar::experiments
