#include "sweeps/session.h"

#include <fmt/format.h>

#include <algorithm>

#include "sweeps/board_kinds.h"
#include "sweeps/fleet/multi_node_run.h"
#include "sweeps/journal.h"
#include "sweeps/spec_io.h"
#include "sweeps/systemd_notifier.h"

namespace jetchar::sweeps {

namespace fs = std::filesystem;

namespace {

// The plan of the sweep for the request's board kind; only the selection's runs when given, its
// multi-node runs placed in the selection's world. Without a world, a multi-node run must say
// where its nodes meet (fleet/multi_node_run.h).
SweepPlan selected_plan(const proto::SweepSpec& sweep, const SweepRequest& request) {
  auto plan = plan_board_kind(sweep, request.kind, request.spec_file.string());
  if (request.selection) {
    std::erase_if(plan.runs, [&](const PlannedRun& run) { return request.selection->run_ids.count(run.run_id) == 0; });
  }
  if (request.selection && request.selection->world) {
    for (auto& run : plan.runs) {
      if (run_node_count(run.spec) > 1) place_in_world(run.spec, *request.selection->world);
    }
  } else {
    check_multi_node_runs_outside_slurm(plan, request.spec_file.string());
  }
  return plan;
}

// adaptive_profile chooses its modes as it goes on one board: never as fleet tasks.
void check_adaptive_sweep(const proto::SweepSpec& sweep, const SweepPlan& plan, const SweepRequest& request) {
  if (!sweep.has_adaptive_profile()) return;
  if (request.selection) {
    throw std::invalid_argument(
        fmt::format("{}: adaptive_profile chooses modes as it goes and runs on one board "
                    "(jetchar sweep run), not as fleet tasks",
                    request.spec_file.string()));
  }
  check_adaptive_profile(sweep.adaptive_profile(), plan, request.spec_file.string());
}

}  // namespace

SweepSession::SweepSession(SweepRequest request)
    : request_(std::move(request)),
      sweep_(load_sweep_spec(request_.spec_file)),
      plan_(selected_plan(sweep_, request_)),
      location_{request_.results_dir} {
  // The results folder belongs to one sweep: a different spec there is refused, the same one resumes.
  // Its copy holds the spec's paths resolved (absolute), so that a resume reads the same data from
  // any working directory; a resume reads that copy itself.
  spec_text_ = resolved_sweep_spec_text(request_.spec_file);
  std::error_code ec;
  spec_stored_ = fs::equivalent(request_.spec_file, location_.spec(), ec) ||
                 location_.holds_sweep_spec(spec_text_, fmt::format("use another --results directory or `jetchar "
                                                                    "sweep resume {}`",
                                                                    location_.directory.string()));
  check_adaptive_sweep(sweep_, plan_, request_);
  name_ = request_.selection      ? request_.selection->sweep_name
          : sweep_.name().empty() ? location_.directory.filename().string()
                                  : sweep_.name();
}

SweepSession::~SweepSession() = default;

void SweepSession::open_results() {
  fs::create_directories(location_.directory);
  // One writer per results folder: a second sweep there would take the first's live run for an
  // interrupted one and overwrite its figures. Only the lock holder opens the store for writing.
  const bool lock_existed = fs::exists(location_.lock());
  writer_.emplace(location_.lock(), fmt::format("results directory {}", location_.directory.string()),
                  request_.wait_for_writer ? sysfs::WriterLock::Wait::kYes : sysfs::WriterLock::Wait::kNo);
  // The store before the spec's copy: a results.db that is not a store is refused with the folder
  // as it was (the lock file made for this sweep goes again: any other writer is refused by the
  // same file).
  try {
    store_.emplace(location_.store());
  } catch (const std::invalid_argument&) {
    if (!lock_existed) fs::remove(location_.lock());
    throw;
  }
  if (!spec_stored_ && fs::absolute(request_.spec_file) != fs::absolute(location_.spec())) {
    location_.store_sweep_spec(spec_text_);
  }
}

SweepOutcome SweepSession::run(RunExecutor& executor, const std::function<bool()>& stop_requested,
                               SweepObserver& observer) {
  if (!store_) throw std::logic_error("SweepSession::run before open_results");
  SweepJournal journal(location_.journal());
  const SystemdNotifier notifier;
  SweepRunnerOptions options;
  options.sweep_name = name_;
  options.record = records_runs();
  options.stop_requested = stop_requested;
  options.log = observer.log();
  options.on_run = [&observer](const SweepProgress& progress, const PlannedRun& run, const proto::RunResult& result) {
    observer.run_done(progress, run, result);
  };
  SweepOutcome outcome;
  // adaptive_profile runs only the modes the predictor asks for (adaptive_profile_sweep.h).
  if (sweep_.has_adaptive_profile()) {
    outcome.adaptive = run_adaptive_profile(sweep_.adaptive_profile(), plan_, *store_, journal, notifier, executor,
                                            options, [&observer](const ProfiledMode& m) { observer.mode_profiled(m); });
    outcome.progress = outcome.adaptive->progress;
    outcome.stopped = outcome.adaptive->stopped;
  } else {
    outcome.progress = SweepRunner(*store_, journal, notifier).run(plan_, executor, options, &outcome.stopped);
  }
  return outcome;
}

bool SweepSession::records_runs() const {
  return !request_.selection || !request_.selection->world || request_.selection->world->node_rank == 0;
}

std::vector<proto::RunResult> SweepSession::stored_results() const {
  if (!store_) throw std::logic_error("SweepSession::stored_results before open_results");
  return store_->load_all(name_);
}

}  // namespace jetchar::sweeps
