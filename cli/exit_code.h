// Exit codes of the jetchar executable: one table for every command, printed at the end of
// `jetchar --help` (kExitCodeHelp). Errors print one line on stderr and map to these in main.cpp.
#pragma once

#include <stdexcept>
#include <string>

namespace jetchar::cli {

enum ExitCode : int {
  kOk = 0,
  kFailure = 1,        ///< a run or operation failed at run time (a sweep with runs that are not OK)
  kUsage = 2,          ///< the command line does not fit the command: unknown command or option,
                       ///< missing or extra arguments, options that exclude each other
  kBadInput = 3,       ///< a file, directory, device or value named on the command line is missing,
                       ///< unreadable, malformed or out of range
  kPermission = 4,     ///< needs root, or a control or file that is not writable
  kInterrupted = 130,  ///< SIGINT or SIGTERM stopped the command (what it did until then is kept)
};

/// The table as `jetchar --help` shows it (the same words as README's "Exit codes").
inline constexpr const char* kExitCodeHelp =
    "Exit codes (every command):\n"
    "  0    success\n"
    "  1    failure at run time (e.g. a sweep with runs that are not OK, a device that is busy)\n"
    "  2    usage: unknown command or option, missing or extra arguments, options that exclude each other\n"
    "  3    bad input: a file, directory, device or value that is missing, unreadable, malformed or out of range\n"
    "  4    permission: needs root, or a control or file that is not writable\n"
    "  130  interrupted by SIGINT or SIGTERM (what was done until then is kept and reported)";

/// A command line that does not fit the command (kUsage), found by a command's own checks.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Ends a command with `code` after `message` (one line on stderr; none when empty), for outcomes
/// that are not an error of one library call: a sweep with failed runs, a signal.
class CommandExit : public std::runtime_error {
 public:
  CommandExit(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace jetchar::cli
