#include "sweeps/runner.h"

#include <fmt/format.h>

#include <chrono>

namespace jetchar::sweeps {

std::string progress_text(const SweepProgress& progress) {
  std::string text = fmt::format("{}/{} runs stored", progress.done, progress.total);
  if (progress.failed > 0) text += fmt::format(", {} not OK", progress.failed);
  if (progress.eta_s && progress.done < progress.total) text += fmt::format(", ETA {:.0f} s", *progress.eta_s);
  return text;
}

SweepRunner::SweepRunner(results::ResultsStore& store, SweepJournal& journal, const SystemdNotifier& notifier)
    : store_(store), journal_(journal), notifier_(notifier) {}

SweepProgress SweepRunner::run(const SweepPlan& plan, RunExecutor& executor, const SweepRunnerOptions& options,
                               bool* stopped) {
  SweepProgress progress;
  progress.total = plan.runs.size();
  // The ETA is the mean duration of the runs stored so far (by any process) times the runs
  // left: runs that adaptive stopping shortened shorten it as they come in.
  double seconds_stored = 0;
  std::size_t durations_stored = 0;
  // A run stored as INTERRUPTED is partial: it counts as not done, and runs again.
  const auto done_in_store = [&](const PlannedRun& run) {
    const auto stored = store_.load(options.sweep_name, run.run_id);
    return stored && stored->status() != proto::INTERRUPTED ? stored : std::nullopt;
  };
  for (const auto& run : plan.runs) {
    if (const auto stored = done_in_store(run)) {
      ++progress.done;
      if (stored->duration_s() > 0) {
        seconds_stored += stored->duration_s();
        ++durations_stored;
      }
    }
  }
  if (durations_stored > 0) {
    progress.eta_s =
        seconds_stored / static_cast<double>(durations_stored) * static_cast<double>(progress.total - progress.done);
  }
  notifier_.ready();
  notifier_.status(progress_text(progress));
  // Runs ping the watchdog as they progress; at most once a second (a datagram per minibatch
  // would be waste: WatchdogSec is minutes).
  auto last_ping = std::chrono::steady_clock::now();
  executor.set_heartbeat([this, &last_ping] {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ping < std::chrono::seconds(1)) return;
    last_ping = now;
    notifier_.watchdog();
  });
  if (stopped != nullptr) *stopped = false;

  for (const auto& run : plan.runs) {
    if (store_.contains(options.sweep_name, run.run_id) && done_in_store(run)) continue;
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
    if (!options.record) {
      // This node's part of a multi-node run: node 0 stores the world's record.
      executor.take_power_samples();
      journal_.finished(run.run_id);
      ++progress.ran_now;
      if (result.status() != proto::OK) ++progress.failed;
      if (options.log != nullptr) {
        *options.log << fmt::format("run {}: this node's part ended {} in {:.1f} s{}; node 0 records the run\n",
                                    run.run_id, proto::RunStatus_Name(result.status()), seconds,
                                    result.reason().empty() ? "" : " (" + result.reason() + ")");
      }
      if (options.on_run) options.on_run(progress, run, result);
      if (result.status() == proto::INTERRUPTED) {
        if (stopped != nullptr) *stopped = true;
        break;
      }
      continue;
    }
    try {
      store_.save(result, executor.take_power_samples());
    } catch (...) {
      // A full disk: the run stays unrecorded (the journal says it started), so a resume re-runs it.
      notifier_.status(fmt::format("stopped: run {} could not be stored", run.run_id));
      throw;
    }
    journal_.finished(run.run_id);
    if (result.status() == proto::INTERRUPTED) {
      // Stored for what it measured, not counted as done: the sweep stops here, a resume reruns it.
      if (options.log != nullptr)
        *options.log << fmt::format("run {} {}; stored as INTERRUPTED\n", run.run_id, result.reason());
      if (stopped != nullptr) *stopped = true;
      break;
    }

    ++progress.done;
    ++progress.ran_now;
    if (result.status() != proto::OK) ++progress.failed;
    seconds_stored += result.duration_s();
    ++durations_stored;
    progress.eta_s =
        seconds_stored / static_cast<double>(durations_stored) * static_cast<double>(progress.total - progress.done);

    const std::string line =
        fmt::format("run {} ({}/{}) {} in {:.1f} s{}; {}", run.run_id, progress.done, progress.total,
                    proto::RunStatus_Name(result.status()), seconds,
                    result.reason().empty() ? "" : ": " + result.reason(), progress_text(progress));
    notifier_.status(progress_text(progress));
    notifier_.watchdog();
    if (options.log != nullptr) *options.log << line << '\n';
    if (options.on_run) options.on_run(progress, run, result);
  }
  notifier_.stopping();
  return progress;
}

}  // namespace jetchar::sweeps
