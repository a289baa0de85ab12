#include "jetson/control/device_controller.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "jetson/control/nvpmodel_tool.h"
#include "sysfs/attribute.h"
#include "sysfs/error.h"

namespace jetchar::jetson {
namespace {

std::string read_raw_or_empty(const sysfs::Root& root, const std::string& path) {
  return sysfs::try_read_string(root, path).value_or("") + "\n";
}

}  // namespace

DeviceController::DeviceController(const sysfs::Root& root, const DeviceControls& controls,
                                   sysfs::ChangeJournal& journal)
    : root_(root), controls_(controls), journal_(journal) {}

void DeviceController::validate(const PowerModePlan& plan) const {
  for (const auto& write : plan.writes) {
    if (!root_.exists(write.path)) {
      throw std::invalid_argument(fmt::format("{}: {} does not exist on this board", write.what, write.path));
    }
    if (!controls_.allowed(root_, write.path)) {
      throw std::invalid_argument(fmt::format("refusing to write {} ({}): it is not a control discovered on this board",
                                              write.path, write.what));
    }
    const auto resolved = root_.resolve(root_.canonical(write.path));
    struct stat info {};
    if (::stat(resolved.c_str(), &info) != 0) throw sysfs::IoError(write.path, "inspect control", errno);
    if ((info.st_mode & 0222) == 0) {
      throw sysfs::IoError(write.path, "write (the attribute is read-only on this board)", EACCES, write.value);
    }
    if (::access(resolved.c_str(), W_OK | R_OK) != 0) {
      throw sysfs::IoError(write.path, ::geteuid() == 0 ? "write" : "write (device control needs root)", errno);
    }
  }
}

void DeviceController::roll_back(const std::vector<std::pair<std::string, std::string>>& undo, bool journal_was_empty,
                                 const ApplyOptions& options) {
  if (journal_was_empty) {
    journal_.restore();  // everything in the journal is this apply's: back and journal removed
  } else {
    // Earlier changes stay (they are journalled for `device restore`); only this apply is undone.
    std::vector<sysfs::JournalEntry> entries;
    for (const auto& [path, value] : undo) entries.push_back({path, value});
    sysfs::restore_entries(root_, entries, journal_.file());
  }
  if (options.after_write) options.after_write();
}

ApplyResult DeviceController::apply(const PowerModePlan& plan, const ApplyOptions& options) {
  validate(plan);
  ApplyResult result;
  result.notes = plan.notes;
  const bool journal_was_empty = journal_.empty();
  std::vector<std::pair<std::string, std::string>> undo;  // (canonical path, value before this apply)

  try {
    if (plan.nvpmodel_id && options.use_nvpmodel_program) {
      // nvpmodel writes the attributes itself: journal what it will touch, then let it run.
      for (const auto& write : plan.writes) {
        undo.emplace_back(root_.canonical(write.path), read_raw_or_empty(root_, write.path));
        journal_.record(write.path);
      }
      nvpmodel_set_mode(root_, *plan.nvpmodel_id, options.confirm_reboot);
      result.writes = plan.writes.size();
    } else {
      for (const auto& write : plan.writes) {
        if (options.interrupt != nullptr && options.interrupt->signal() != 0) {
          throw Interrupted(options.interrupt->signal());
        }
        undo.emplace_back(root_.canonical(write.path), read_raw_or_empty(root_, write.path));
        journal_.write(write.path, write.value, sysfs::Verify::kReadBack);
        ++result.writes;
        if (options.after_write) options.after_write();
      }
    }
    result.settle = settle_clocks(root_, plan.settle, options.settle_timeout, options.settle_poll);
    if (!result.settle.pinned_settled()) {
      throw std::runtime_error(
          fmt::format("clocks did not settle at the values set: {}", fmt::join(result.settle.problems(), "; ")));
    }
    for (const auto& problem : result.settle.problems()) result.notes.push_back("not settled (DVFS): " + problem);
    if (options.interrupt != nullptr && options.interrupt->signal() != 0)
      throw Interrupted(options.interrupt->signal());
  } catch (...) {
    roll_back(undo, journal_was_empty, options);
    throw;
  }
  return result;
}

}  // namespace jetchar::jetson
