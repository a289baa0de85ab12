#include "experiments/sweep_runner.h"

#include <fmt/format.h>

#include <chrono>

namespace jetchar::experiments {

SweepRunner::SweepRunner(ResultsStore& store, SweepJournal& journal, const SystemdNotifier& notifier)
    : store_(store), journal_(journal), notifier_(notifier) {}

SweepProgress SweepRunner::run(const SweepPlan& plan, RunExecutor& executor, const SweepRunnerOptions& options,
                               bool* stopped) {
  SweepProgress progress;
  progress.total = plan.runs.size();
  for (const auto& run : plan.runs) {
    if (store_.contains(options.sweep_name, run.run_id)) ++progress.done;
  }
  notifier_.ready();
  notifier_.status(fmt::format("{}/{} runs stored", progress.done, progress.total));
  if (stopped != nullptr) *stopped = false;

  double seconds_this_process = 0;
  for (const auto& run : plan.runs) {
    if (store_.contains(options.sweep_name, run.run_id)) continue;
    if (options.stop_requested()) {
      if (stopped != nullptr) *stopped = true;
      break;
    }
    if (options.log != nullptr && journal_.interrupted().count(run.run_id) != 0) {
      *options.log << fmt::format("run {} was interrupted by an earlier process; running it again\n", run.run_id);
    }
    journal_.started(run.run_id);
    const auto start = std::chrono::steady_clock::now();
    proto::RunResult result;
    try {
      result = executor.execute(run);
    } catch (...) {
      // The sweep cannot continue (board control failed, a signal): the run stays unrecorded so
      // that a resume runs it again.
      notifier_.status(fmt::format("stopped in run {}", run.run_id));
      throw;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.set_sweep(options.sweep_name);
    result.set_run_id(run.run_id);
    result.set_repetition(run.repetition);
    if (result.duration_s() == 0) result.set_duration_s(seconds);
    store_.save(result);
    journal_.finished(run.run_id);

    ++progress.done;
    ++progress.ran_now;
    if (result.status() != proto::OK) ++progress.failed;
    seconds_this_process += seconds;
    progress.eta_s = seconds_this_process / static_cast<double>(progress.ran_now) *
                     static_cast<double>(progress.total - progress.done);

    const std::string line = fmt::format("run {} ({}/{}) {} in {:.1f} s{}", run.run_id, progress.done, progress.total,
                                         proto::RunStatus_Name(result.status()), seconds,
                                         result.reason().empty() ? "" : ": " + result.reason());
    notifier_.status(fmt::format("{}/{} runs, ETA {:.0f} s", progress.done, progress.total, *progress.eta_s));
    notifier_.watchdog();
    if (options.log != nullptr) *options.log << line << '\n';
    if (options.on_run) options.on_run(progress, run, result);
  }
  notifier_.stopping();
  return progress;
}

}  // namespace jetchar::experiments
