// The learning-rate schedule of the BERT fine-tuning scripts: linear warm-up from 0 over the
// first warmup steps, then linear decay to 0 at the last step (Hugging Face's
// get_linear_schedule_with_warmup, which the run_ner/run_qa examples use; warm-up steps =
// ceil(total steps × warmup ratio), as their Trainer computes them). A factor of the base rate
// per optimizer step, counted from 0; HF's LambdaLR applies the factor of step 0 to the first
// update, so with warm-up the first update uses a rate of 0, and so does this schedule.
#pragma once

#include <cstdint>

namespace jetchar::experiments {

struct LinearSchedule {
  std::int64_t warmup_steps = 0;
  std::int64_t total_steps = 0;

  /// Throws std::invalid_argument naming the value when `warmup_proportion` is outside [0, 1] or
  /// `total_steps` is below 1.
  static LinearSchedule from_proportion(double warmup_proportion, std::int64_t total_steps);
  /// Factor of the base learning rate for the update after `step` earlier updates.
  double factor(std::int64_t step) const;
};

}  // namespace jetchar::experiments
