#include "jetson/control/control_session.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>

#include "jetson/control/control_snapshot.h"
#include "jetson/nvml/nvml_control.h"

namespace jetchar::jetson {

sysfs::WriterLock lock_board(const std::filesystem::path& state_dir) {
  std::filesystem::create_directories(state_dir);
  return sysfs::WriterLock(state_dir / "lock", fmt::format("the board (change journal in {})", state_dir.string()));
}

ControlSession::ControlSession(const sysfs::Root& root, std::filesystem::path state_dir,
                               std::function<void()> after_write)
    : root_(root),
      writer_(lock_board(state_dir)),
      controls_(discover_device_controls(root)),
      journal_(root, std::move(state_dir)),
      after_write_(std::move(after_write)),
      owns_journal_(!journal_.continued_pending()) {
  // A journal may hold NVML's knobs (nvml:...): restoring them goes through NVML.
  register_nvml_controls();
  // Every control as it was before the first write, the second source a restore reads.
  journal_.set_snapshot_source([&root] { return snapshot_controls(root).entries; });
  second_signal_watch_ = std::jthread([this](const std::stop_token& stop) { watch_for_second_signal(stop); });
}

void ControlSession::watch_for_second_signal(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    interrupt_.wait(std::chrono::milliseconds(200));
    if (interrupt_.count() < 2) {
      // The first signal keeps the pipe readable: wait() returns at once from then on.
      if (interrupt_.signal() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const std::lock_guard lock(journal_mutex_);
    if (journal_.empty()) {
      std::fputs("jetchar: second signal: ending now (the board was not changed)\n", stderr);
      std::_Exit(130);
    }
    if (kept_ || !owns_journal_) {
      std::fputs("jetchar: second signal: ending now; the change journal stays for `jetchar device restore`\n", stderr);
      std::_Exit(130);
    }
    try {
      const std::size_t count = journal_.restore();
      if (after_write_) after_write_();
      std::fprintf(stderr, "jetchar: second signal: the board was restored (%zu attributes); ending now\n", count);
    } catch (const std::exception& e) {
      std::fprintf(stderr,
                   "jetchar: second signal: restoring the board failed (%s); `jetchar device restore` "
                   "brings it back\n",
                   e.what());
    }
    std::_Exit(130);
  }
}

ControlSession::~ControlSession() {
  second_signal_watch_ = {};  // stopped and joined: the restore below is this thread's alone
  if (kept_ || journal_.empty()) return;
  if (!owns_journal_) {
    std::fprintf(stderr,
                 "jetchar: note: the change journal %s also holds an earlier run's changes; the board is "
                 "left as it is: `jetchar device restore` brings all of it back\n",
                 journal_.file().c_str());
    return;
  }
  try {
    restore();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jetchar: error: restoring the board failed: %s\n", e.what());
  }
}

ApplyResult ControlSession::apply(const PowerModePlan& plan, ApplyOptions options) {
  options.interrupt = &interrupt_;
  if (!options.after_write) options.after_write = after_write_;
  const std::lock_guard lock(journal_mutex_);
  DeviceController controller(root_, controls_, journal_);
  return controller.apply(plan, options);
}

std::size_t ControlSession::restore() {
  const std::lock_guard lock(journal_mutex_);
  const std::size_t count = journal_.restore();
  if (after_write_) after_write_();
  return count;
}

}  // namespace jetchar::jetson
