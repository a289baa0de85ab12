#include "experiments/systemd_notifier.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/support/temp_dir.h"

namespace jetchar::experiments {
namespace {

// A datagram socket standing in for systemd's notification socket.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof address.sun_path - 1);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) throw std::runtime_error("bind");
    timeval timeout{2, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~NotifySocket() { ::close(fd_); }

  std::string receive() const {
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    return n < 0 ? "<nothing>" : std::string(buffer, static_cast<size_t>(n));
  }

 private:
  int fd_ = -1;
};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(SystemdNotifierTest, SendsReadyStatusWatchdogAndStopping) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "notify").string();
  NotifySocket socket(path);
  ScopedEnv notify("NOTIFY_SOCKET", path);
  ScopedEnv watchdog_usec("WATCHDOG_USEC", "30000000");
  ScopedEnv watchdog_pid("WATCHDOG_PID", std::to_string(::getpid()));

  SystemdNotifier notifier;
  ASSERT_TRUE(notifier.active());
  ASSERT_TRUE(notifier.watchdog_interval().has_value());
  EXPECT_EQ(notifier.watchdog_interval()->count(), 30000000);

  notifier.ready();
  EXPECT_EQ(socket.receive(), "READY=1");
  notifier.status("run 3/12 (MODE_30W)\nETA 5 min");
  EXPECT_EQ(socket.receive(), "STATUS=run 3/12 (MODE_30W) ETA 5 min");
  notifier.watchdog();
  EXPECT_EQ(socket.receive(), "WATCHDOG=1");
  notifier.stopping();
  EXPECT_EQ(socket.receive(), "STOPPING=1");
}

TEST(SystemdNotifierTest, WatchdogForAnotherProcessIsNotOurs) {
  ScopedEnv notify("NOTIFY_SOCKET", "/run/nonexistent-notify");
  ScopedEnv watchdog_usec("WATCHDOG_USEC", "30000000");
  ScopedEnv watchdog_pid("WATCHDOG_PID", "1");
  EXPECT_FALSE(SystemdNotifier().watchdog_interval().has_value());
}

TEST(SystemdNotifierTest, OutsideSystemdEverythingIsANoOp) {
  ::unsetenv("NOTIFY_SOCKET");
  SystemdNotifier notifier;
  EXPECT_FALSE(notifier.active());
  notifier.ready();
  notifier.status("x");
  notifier.watchdog();
}

}  // namespace
}  // namespace jetchar::experiments
