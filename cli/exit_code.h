// Exit codes of the jetchar executable. Errors print one line on stderr and map to these.
#pragma once

namespace jetchar::cli {

enum ExitCode : int {
  kOk = 0,
  kFailure = 1,       ///< a run or operation failed at run time
  kUsage = 2,         ///< bad command line (CLI11's own code as well)
  kBadInput = 3,      ///< a file, path or value given by the user is missing or malformed
  kPermission = 4,    ///< needs root or a writable control
  kInterrupted = 130, ///< SIGINT
};

}  // namespace jetchar::cli
