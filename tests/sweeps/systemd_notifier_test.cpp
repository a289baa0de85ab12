#include "sweeps/systemd_notifier.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "results/store.h"
#include "sweeps/journal.h"
#include "sweeps/plan.h"
#include "sweeps/runner.h"
#include "sweeps/spec_io.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sweeps {
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

// What systemd sets up for a Type=notify service with WatchdogSec=30: the socket and the variables.
class UnderSystemdTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  const std::string path = (dir.path() / "notify").string();
  NotifySocket socket{path};
  testing::ScopedEnv notify{"NOTIFY_SOCKET", path};
  testing::ScopedEnv watchdog_usec{"WATCHDOG_USEC", "30000000"};
  testing::ScopedEnv watchdog_pid{"WATCHDOG_PID", std::to_string(::getpid())};
};

TEST_F(UnderSystemdTest, SendsReadyStatusWatchdogAndStopping) {
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
  testing::ScopedEnv notify("NOTIFY_SOCKET", "/run/nonexistent-notify");
  testing::ScopedEnv watchdog_usec("WATCHDOG_USEC", "30000000");
  testing::ScopedEnv watchdog_pid("WATCHDOG_PID", "1");
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

// A run that makes progress for longer than the throttle interval, as a long training run does.
class ProgressingExecutor : public RunExecutor {
 public:
  proto::RunResult execute(const PlannedRun& run) override {
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      heartbeat();
    }
    proto::RunResult result;
    result.set_status(proto::OK);
    result.mutable_resolved()->CopyFrom(run.spec);
    return result;
  }
  std::string describe() const override { return "progressing"; }
};

TEST_F(UnderSystemdTest, ASweepPingsTheWatchdogWhileARunProgresses) {
  SystemdNotifier notifier;
  results::ResultsStore store(dir.path() / "results.db");
  SweepJournal journal(dir.path() / "journal");
  ProgressingExecutor executor;
  SweepRunnerOptions options;
  options.sweep_name = "s";
  const auto plan = plan_sweep(parse_sweep_spec(R"(
name: "s"
base { workload { model: "lenet5" dataset: "synthetic:1x28x28" batch_size: 8 } }
)",
                                                "s"),
                               "s");
  SweepRunner(store, journal, notifier).run(plan, executor, options);

  EXPECT_EQ(socket.receive(), "READY=1");
  EXPECT_EQ(socket.receive().rfind("STATUS=", 0), 0u);
  // 1.8 s of progress with heartbeats every 0.6 s, throttled to one ping a second: the watchdog
  // hears from the run before it ends (without this a run longer than WatchdogSec was killed).
  EXPECT_EQ(socket.receive(), "WATCHDOG=1");
  EXPECT_EQ(socket.receive().rfind("STATUS=1/1 runs stored", 0), 0u);
  EXPECT_EQ(socket.receive(), "WATCHDOG=1");
  EXPECT_EQ(socket.receive(), "STOPPING=1");
}

}  // namespace
}  // namespace jetchar::sweeps
