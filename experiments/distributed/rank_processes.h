// The ranks a node's first rank starts, as torchrun starts its workers: child processes running
// this same executable, each told its place by its arguments. A child dies with the process that
// started it (PR_SET_PDEATHSIG), so a SIGKILLed rank 0 leaves no rank behind; a child that dies
// is named by rank, with its exit status or signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace jetchar::experiments::distributed {

struct RankExit {
  int rank = 0;
  std::string why;  ///< "rank 1 (pid 123) was killed by SIGKILL"
};

class RankProcesses {
 public:
  RankProcesses() = default;
  /// Stops the ranks still running (stop()).
  ~RankProcesses();
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  /// Starts rank `rank` as /proc/self/exe with `arguments` (argv[1..]). Throws std::system_error
  /// when the process cannot be made.
  void start(int rank, const std::vector<std::string>& arguments);

  /// A rank that has ended, whatever its status, without waiting; nullopt while all run.
  std::optional<RankExit> ended();
  /// Waits up to `timeout` for a rank to end with a failure (a non-zero status or a signal).
  std::optional<RankExit> failed_within(std::chrono::milliseconds timeout);
  /// Waits up to `timeout` for every rank to end; returns the failures (those that ended
  /// non-zero, by a signal, or not at all in time: the last are killed).
  std::vector<RankExit> wait_all(std::chrono::milliseconds timeout);
  /// SIGTERM to the ranks still running, SIGKILL to those that outlive 5 s; all are reaped.
  void stop();

 private:
  struct Child {
    int rank = 0;
    pid_t pid = -1;
    std::optional<int> status;  // waitpid's, once reaped
  };
  // Reaps what has ended without blocking.
  void reap();
  static std::string describe(const Child& child);
  static bool failed(const Child& child);

  std::vector<Child> children_;
};

}  // namespace jetchar::experiments::distributed
