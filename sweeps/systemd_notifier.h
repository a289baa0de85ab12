// Tells systemd how a sweep is doing when it runs as a Type=notify service: READY once the plan
// is validated, STATUS= lines with progress, WATCHDOG=1 pings from the sweep loop, STOPPING on
// the way out. Outside systemd (no NOTIFY_SOCKET) every call is a cheap no-op.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace jetchar::sweeps {

class SystemdNotifier {
 public:
  SystemdNotifier();

  /// True when a service manager is listening (NOTIFY_SOCKET is set).
  bool active() const { return active_; }
  /// The service's WatchdogSec when the watchdog is enabled for this process.
  std::optional<std::chrono::microseconds> watchdog_interval() const { return watchdog_; }

  void ready() const;
  void status(std::string_view text) const;
  /// Pings the watchdog; call at least every watchdog_interval() / 2.
  void watchdog() const;
  void stopping() const;

 private:
  void send(std::string_view message) const;

  bool active_ = false;
  std::optional<std::chrono::microseconds> watchdog_;
};

}  // namespace jetchar::sweeps
