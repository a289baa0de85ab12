#include "experiments/direct_run.h"

#include <fmt/format.h>

#include <stdexcept>

#include "experiments/sweep_validation.h"
#include "sweeps/plan.h"

namespace jetchar::experiments {

DirectRuns::DirectRuns(jetson::BoardHandle& board, std::string source, WorkloadObserver* observer)
    : board_(board), source_(std::move(source)), executor_(board) {
  executor_.set_observer(observer);
}

proto::RunResult DirectRuns::run(const proto::ExperimentSpec& spec) {
  const auto plan = sweeps::plan_single_run(spec, source_);
  const auto problems = validate_plan_against_board(plan, board_);
  if (!problems.empty()) {
    std::string text;
    for (const auto& problem : problems) text += (text.empty() ? "" : "; ") + problem.message;
    throw std::invalid_argument(fmt::format("{}: {}", source_, text));
  }
  return executor_.execute(plan.runs.front());
}

}  // namespace jetchar::experiments
