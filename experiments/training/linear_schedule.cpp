#include "experiments/training/linear_schedule.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace jetchar::experiments {

LinearSchedule LinearSchedule::from_proportion(double warmup_proportion, std::int64_t total_steps) {
  if (!(warmup_proportion >= 0.0 && warmup_proportion <= 1.0)) {
    throw std::invalid_argument(fmt::format(
        "warm-up proportion {} is not valid; it is a fraction of the steps from 0 to 1", warmup_proportion));
  }
  if (total_steps < 1) {
    throw std::invalid_argument(fmt::format("a learning-rate schedule over {} steps needs at least 1", total_steps));
  }
  return {static_cast<std::int64_t>(std::ceil(static_cast<double>(total_steps) * warmup_proportion)), total_steps};
}

double LinearSchedule::factor(std::int64_t step) const {
  if (step < warmup_steps)
    return static_cast<double>(step) / static_cast<double>(std::max<std::int64_t>(1, warmup_steps));
  return std::max(0.0, static_cast<double>(total_steps - step) /
                           static_cast<double>(std::max<std::int64_t>(1, total_steps - warmup_steps)));
}

}  // namespace jetchar::experiments
