// The loss of every optimizer step of a phased pretraining run's phases, as a results store keeps
// them (table phase_steps, schema 10): the report draws each phase's loss over its steps from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace jetchar::analysis {

struct PhaseStepLosses {
  /// The run, as the store identifies it; the records of its epochs carry the same (RunRecord's
  /// sweep, run_id and device).
  std::string sweep;
  std::string run_id;
  std::string device;
  int phase = 0;  ///< from 1
  /// Step i + 1's loss; nullopt where it was not a number (a diverged step).
  std::vector<std::optional<double>> losses;
};

}  // namespace jetchar::analysis
