// Applies a planned power mode to the board: every write goes through the change journal (the
// original is durable before the attribute changes), only to discovered controls, with a read-back
// after each write and a settle step at the end. Anything going wrong half-way — a refused write,
// a value that does not read back, clocks that do not settle, SIGINT/SIGTERM — rolls the board
// back to exactly where this apply found it before the error propagates.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "jetson/control/clock_settle.h"
#include "jetson/control/control_interrupt.h"
#include "jetson/control/control_points.h"
#include "jetson/control/power_mode.h"
#include "sysfs/change_journal.h"
#include "sysfs/root.h"

namespace jetchar::jetson {

struct ApplyOptions {
  std::chrono::milliseconds settle_timeout{3000};
  std::chrono::milliseconds settle_poll{20};
  /// Checked between writes: a signal rolls back and throws Interrupted.
  const ControlInterrupt* interrupt = nullptr;
  /// Called after every write and after a rollback (the simulated board's behaviour model).
  std::function<void()> after_write;
  /// Presets: run the board's own `nvpmodel -m` instead of writing the PARAMs ourselves.
  bool use_nvpmodel_program = false;
  bool confirm_reboot = false;
};

struct ApplyResult {
  std::size_t writes = 0;
  SettleResult settle;
  std::vector<std::string> notes;
};

class DeviceController {
 public:
  DeviceController(const sysfs::Root& root, const DeviceControls& controls, sysfs::ChangeJournal& journal);

  /// Throws before anything is written: std::invalid_argument for a path that is not a
  /// discovered control, sysfs::IoError (EACCES) for one this process cannot write.
  void validate(const PowerModePlan& plan) const;
  ApplyResult apply(const PowerModePlan& plan, const ApplyOptions& options);

 private:
  void roll_back(const std::vector<std::pair<std::string, std::string>>& undo, bool journal_was_empty,
                 const ApplyOptions& options);

  const sysfs::Root& root_;
  const DeviceControls& controls_;
  sysfs::ChangeJournal& journal_;
};

}  // namespace jetchar::jetson
