#include "experiments/direct_run.h"

#include <fmt/format.h>

#include <stdexcept>

#include "experiments/sweep_validation.h"

namespace jetchar::experiments {

DirectRuns::DirectRuns(jetson::BoardHandle& board, std::string source, WorkloadObserver* observer)
    : board_(board), source_(std::move(source)), executor_(board) {
  executor_.set_observer(observer);
}

sweeps::SweepPlan DirectRuns::plan(const std::vector<proto::ExperimentSpec>& specs) {
  auto plan = sweeps::plan_runs(specs, source_);
  const auto problems = validate_plan_against_board(plan, board_);
  if (!problems.empty()) {
    std::string text;
    for (const auto& problem : problems) text += (text.empty() ? "" : "; ") + problem.message;
    throw std::invalid_argument(fmt::format("{}: {}", source_, text));
  }
  return plan;
}

proto::RunResult DirectRuns::run(const sweeps::PlannedRun& run) { return executor_.execute(run); }

}  // namespace jetchar::experiments
