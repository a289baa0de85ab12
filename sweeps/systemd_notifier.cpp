#include "sweeps/systemd_notifier.h"

#include <systemd/sd-daemon.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace jetchar::sweeps {

SystemdNotifier::SystemdNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  active_ = socket != nullptr && *socket != '\0';
  std::uint64_t usec = 0;
  if (active_ && sd_watchdog_enabled(0, &usec) > 0) watchdog_ = std::chrono::microseconds(usec);
}

void SystemdNotifier::send(std::string_view message) const {
  if (!active_) return;
  // A failed notification must never stop a sweep: systemd may be restarting, and the watchdog
  // (if any) is the backstop.
  (void)sd_notify(0, std::string(message).c_str());
}

void SystemdNotifier::ready() const { send("READY=1"); }

void SystemdNotifier::status(std::string_view text) const {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n') c = ' ';  // one assignment per line in the notify protocol
  }
  send("STATUS=" + line);
}

void SystemdNotifier::watchdog() const { send("WATCHDOG=1"); }

void SystemdNotifier::stopping() const { send("STOPPING=1"); }

}  // namespace jetchar::sweeps
