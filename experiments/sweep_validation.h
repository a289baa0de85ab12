// Checks a sweep plan against the board before the first run starts: every distinct power mode
// is planned (not applied) against the board's discovered controls, every model must exist, and
// every data set path must open. Each message starts with the spec field it is about. Problems are collected so that
// one report lists all of them.
#pragma once

#include <string>
#include <vector>

#include "jetson/discovery/board_handle.h"
#include "sweeps/plan.h"

namespace jetchar::experiments {

struct PlanProblem {
  std::string run_id;  ///< the first run the problem affects
  std::string message;
};

/// Validates `plan` against `board`; empty when everything can run. Also checks the measurement:
/// meter protocols and serial devices, the adaptive threshold, and the GPIO marker's chip (not
/// required on a board that marks without one: BoardHooks::marks_without_gpio).
std::vector<PlanProblem> validate_plan_against_board(const sweeps::SweepPlan& plan, const jetson::BoardHandle& board);

/// A rough duration estimate: baseload and cool-down per run plus the workload's arithmetic
/// (3 × forward MACs per trained sample) at this machine's measured matrix-multiply rate.
double estimate_sweep_seconds(const sweeps::SweepPlan& plan);

}  // namespace jetchar::experiments
