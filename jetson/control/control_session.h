// A control session: the board's controls, the change journal and the SIGINT/SIGTERM watch for
// one process that changes the board. It restores the board when it ends — normal exit, an
// exception, or a signal noticed on the main path — unless keep() says the change is meant to
// last (then the journal stays for `jetchar device restore`).
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "jetson/control/control_interrupt.h"
#include "jetson/control/control_points.h"
#include "jetson/control/device_controller.h"
#include "sysfs/change_journal.h"
#include "sysfs/root.h"
#include "sysfs/writer_lock.h"

namespace jetchar::jetson {

/// The lock of the one process that controls the board whose journal lives in `state_dir`
/// (created when absent): throws sysfs::LockHeld naming the holder while another has it.
sysfs::WriterLock lock_board(const std::filesystem::path& state_dir);

class ControlSession {
 public:
  /// `after_write` runs after every write and restore (the simulated board's behaviour model).
  /// Takes the board's writer lock (`state_dir`/lock, the folder created when absent): throws
  /// sysfs::LockHeld while another process controls the board.
  ControlSession(const sysfs::Root& root, std::filesystem::path state_dir, std::function<void()> after_write = {});
  /// Restores unless kept (or the journal was continued from a crashed run); errors are reported
  /// on stderr, never thrown.
  ~ControlSession();
  ControlSession(const ControlSession&) = delete;
  ControlSession& operator=(const ControlSession&) = delete;

  const DeviceControls& controls() const { return controls_; }
  sysfs::ChangeJournal& journal() { return journal_; }
  const ControlInterrupt& interrupt() const { return interrupt_; }

  ApplyResult apply(const PowerModePlan& plan, ApplyOptions options = {});
  /// Brings every journalled attribute back and removes the journal. Returns the count.
  std::size_t restore();
  /// The changes stay after the session; the journal stays pending.
  void keep() { kept_ = true; }

 private:
  /// A second SIGINT/SIGTERM while the main path is busy (a long minibatch) restores the board from
  /// this thread and ends the process with 130: the user asked twice.
  void watch_for_second_signal(const std::stop_token& stop);

  const sysfs::Root& root_;
  /// One process controls a board at a time: a second is refused naming the first's pid and
  /// command (sysfs/writer_lock.h; the journal's own flock says only that one is held).
  sysfs::WriterLock writer_;
  ControlInterrupt interrupt_;
  std::mutex journal_mutex_;  ///< apply() and restore() on the main path, or the second signal's restore
  DeviceControls controls_;
  sysfs::ChangeJournal journal_;
  std::function<void()> after_write_;
  std::atomic<bool> kept_ = false;  ///< read by the second signal's watcher too
  /// False when the journal continued one left by a crashed run: restoring at exit would also undo
  /// that run's changes, which this session did not make, so it is left to `device restore`.
  bool owns_journal_ = true;
  std::jthread second_signal_watch_;  ///< last: stopped and joined before the members it uses go
};

}  // namespace jetchar::jetson
