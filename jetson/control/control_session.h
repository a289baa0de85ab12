// A control session: the board's controls, the change journal and the SIGINT/SIGTERM watch for
// one process that changes the board. It restores the board when it ends — normal exit, an
// exception, or a signal noticed on the main path — unless keep() says the change is meant to
// last (then the journal stays for `jetchar device restore`).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>

#include "jetson/control/control_interrupt.h"
#include "jetson/control/control_points.h"
#include "jetson/control/device_controller.h"
#include "sysfs/change_journal.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

class ControlSession {
 public:
  /// `after_write` runs after every write and restore (the simulated board's behaviour model).
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
  const sysfs::Root& root_;
  ControlInterrupt interrupt_;
  DeviceControls controls_;
  sysfs::ChangeJournal journal_;
  std::function<void()> after_write_;
  bool kept_ = false;
  /// False when the journal continued one left by a crashed run: restoring at exit would also undo
  /// that run's changes, which this session did not make, so it is left to `device restore`.
  bool owns_journal_ = true;
};

}  // namespace jetchar::jetson
