// SIGINT/SIGTERM for a command that runs until it is stopped: while the board is being controlled
// (the restore runs on the main path, which checks the flag between writes and while waiting), and
// while a meter is read or simulated (cli/meter_command.cpp). The handler only records the signal
// (an atomic flag and a byte on a self-pipe — both async-signal-safe).
#pragma once

#include <chrono>
#include <csignal>

namespace jetchar::jetson {

class ControlInterrupt {
 public:
  /// Installs the handlers; the previous ones come back on destruction. One instance at a time.
  ControlInterrupt();
  ~ControlInterrupt();
  ControlInterrupt(const ControlInterrupt&) = delete;
  ControlInterrupt& operator=(const ControlInterrupt&) = delete;

  /// The signal received (SIGINT or SIGTERM), or 0.
  int signal() const;
  /// Waits up to `timeout` for a signal; returns it or 0.
  int wait(std::chrono::milliseconds timeout) const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
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
