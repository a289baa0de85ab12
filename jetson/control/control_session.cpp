#include "jetson/control/control_session.h"

#include <cstdio>

#include "jetson/nvml/nvml_control.h"

namespace jetchar::jetson {

ControlSession::ControlSession(const sysfs::Root& root, std::filesystem::path state_dir,
                               std::function<void()> after_write)
    : root_(root),
      controls_(discover_device_controls(root)),
      journal_(root, std::move(state_dir)),
      after_write_(std::move(after_write)),
      owns_journal_(!journal_.continued_pending()) {
  // A journal may hold NVML's knobs (nvml:...): restoring them goes through NVML.
  register_nvml_controls();
}

ControlSession::~ControlSession() {
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
  DeviceController controller(root_, controls_, journal_);
  return controller.apply(plan, options);
}

std::size_t ControlSession::restore() {
  const std::size_t count = journal_.restore();
  if (after_write_) after_write_();
  return count;
}

}  // namespace jetchar::jetson
