// SIGINT/SIGTERM for code that must end cleanly when it is stopped: a whole sweep (cli/sweep_command.cpp:
// a sweep of "as found" runs ends after the current run), board control (the restore runs on the main
// path, which checks the flag between writes and while waiting), `monitor`, and a meter read or
// simulated (cli/meter_command.cpp). It is the process's only SIGINT/SIGTERM handling.
//
// Holders nest: the sweep holds one for its whole duration and the control session it opens holds
// another. The handlers are process-wide and counted: the first holder installs them and clears the
// flag (a signal handled before is not seen again), every holder sees a signal that arrives while
// any holds, and the last holder puts back the handlers that were there before the first. The
// handler only records the signal (an atomic flag and a byte on a self-pipe, both async-signal-safe).
#pragma once

#include <chrono>
#include <exception>

namespace jetchar::jetson {

class ControlInterrupt {
 public:
  /// Holds the handlers: installs them if this is the only holder. Safe from any thread.
  ControlInterrupt();
  /// The last holder to go puts back the handlers found by the first.
  ~ControlInterrupt();
  ControlInterrupt(const ControlInterrupt&) = delete;
  ControlInterrupt& operator=(const ControlInterrupt&) = delete;

  /// The signal received (SIGINT or SIGTERM; the later one when both came) since the outermost
  /// holder was made, or 0.
  int signal() const;
  /// How many signals arrived since the outermost holder was made (a second Ctrl-C: 2).
  int count() const;
  /// Waits up to `timeout` for a signal; returns it or 0. Returns at once once one has arrived, for
  /// every holder and waiter.
  int wait(std::chrono::milliseconds timeout) const;
};

/// Thrown on the main path when a signal arrived between writes.
class Interrupted : public std::exception {
 public:
  explicit Interrupted(int signal) : signal_(signal) {}
  int signal() const { return signal_; }
  const char* what() const noexcept override { return "interrupted by a signal; the board was restored"; }

 private:
  int signal_;
};

}  // namespace jetchar::jetson
