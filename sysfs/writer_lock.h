// One writer at a time for a folder whose files a command rewrites (a results directory, a
// merge's output): an flock(2) on a lock file inside it. The kernel drops the lock when its holder
// dies, whatever kills it, so a SIGKILLed sweep never leaves a lock behind and `sweep resume`
// takes it at once; the file's content (the holder's pid and command line) only names the holder
// in the refusal, it is never what decides. The file stays after the holder ends: removing it
// would let a third process lock a new file while a second still waits on the old one.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sysfs/unique_fd.h"

namespace jetchar::sysfs {

/// Another live process holds the lock (exit 1: a busy resource, not bad input).
class LockHeld : public std::runtime_error {
 public:
  LockHeld(const std::string& message, std::optional<pid_t> holder_pid)
      : std::runtime_error(message), holder_pid_(holder_pid) {}
  /// The holder's pid as its lock file names it; nullopt when the file did not say.
  std::optional<pid_t> holder_pid() const { return holder_pid_; }

 private:
  std::optional<pid_t> holder_pid_;
};

/// A wait for the lock ended by its stop_waiting (a signal).
class WaitStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class WriterLock {
 public:
  enum class Wait { kNo, kYes };

  /// Locks `lock_file` (created when absent; its folder must exist). `what` names the locked thing
  /// in the refusal ("results directory runs/"). Wait::kNo throws LockHeld naming the holder's pid
  /// and command when a live process holds it; Wait::kYes waits until the holder ends, asking
  /// `stop_waiting` (when given) every 100 ms: true ends the wait with WaitStopped. Other failures
  /// throw IoError naming the file.
  WriterLock(const std::filesystem::path& lock_file, std::string_view what, Wait wait = Wait::kNo,
             const std::function<bool()>& stop_waiting = {});
  ~WriterLock() = default;
  WriterLock(WriterLock&&) = default;
  WriterLock& operator=(WriterLock&&) = default;

  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  UniqueFd fd_;
};

/// This process's command line as `ps` shows it ("jetchar sweep run spec.textproto"), from
/// /proc/self/cmdline; empty when unreadable.
std::string own_command_line();

}  // namespace jetchar::sysfs
