#include "experiments/frontier/probe_child.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

namespace jetchar::experiments {
namespace {

// A real child through the real fork/exec/pipes: /bin/sh with a script, the request JSON as $1.
ProbeCommand shell(const std::string& script) { return {"/bin/sh", {"-c", script, "probe"}, std::nullopt}; }

ProbeRequest request() {
  ProbeRequest r;
  r.model = "bert-tiny";
  r.micro_batch = 3;
  return r;
}

TEST(ProbeChildTest, TheVerdictIsTheLastLineOfStdoutAndTheRequestIsTheLastArgument) {
  const auto outcome = run_probe_child(
      shell("echo progress; echo noise >&2; case \"$1\" in *'\"micro_batch\":3'*) "
            "echo '{\"status\":\"fits\",\"timed_steps\":1,\"step_ns\":5.0,\"peak_rss_bytes\":42}';; esac"),
      request());
  EXPECT_EQ(outcome.status, ProbeStatus::kFits) << outcome.error;
  EXPECT_EQ(outcome.step_ns, 5.0);
  EXPECT_EQ(outcome.peak_rss_bytes, 42u);
  EXPECT_GT(outcome.wall_s, 0.0);
}

TEST(ProbeChildTest, AChildKilledOrSayingOutOfMemoryIsOutOfMemoryAnythingElseFailed) {
  const auto killed = run_probe_child(shell("kill -KILL $$"), request());
  EXPECT_EQ(killed.status, ProbeStatus::kOutOfMemory);
  EXPECT_NE(killed.error.find("signal 9"), std::string::npos) << killed.error;

  const auto gomp =
      run_probe_child(shell("echo 'libgomp: Out of memory allocating 8388608 bytes' >&2; exit 1"), request());
  EXPECT_EQ(gomp.status, ProbeStatus::kOutOfMemory);
  EXPECT_NE(gomp.error.find("libgomp"), std::string::npos) << gomp.error;

  const auto aborted = run_probe_child(shell("echo 'segment fault in layer' >&2; kill -ABRT $$"), request());
  EXPECT_EQ(aborted.status, ProbeStatus::kFailed);
  EXPECT_NE(aborted.error.find("segment fault in layer"), std::string::npos) << aborted.error;

  const auto garbled = run_probe_child(shell("echo '{\"status\": 3}'"), request());
  EXPECT_EQ(garbled.status, ProbeStatus::kFailed);
  EXPECT_NE(garbled.error.find("not the protocol's"), std::string::npos) << garbled.error;

  const auto missing = run_probe_child({"/nonexistent/jetchar", {"frontier-probe"}, std::nullopt}, request());
  EXPECT_EQ(missing.status, ProbeStatus::kFailed);
  EXPECT_NE(missing.error.find("status 127"), std::string::npos) << missing.error;
}

TEST(ProbeChildTest, AChildPastItsTimeoutIsKilledAndFails) {
  auto command = shell("sleep 30");
  command.timeout = std::chrono::seconds(1);
  const auto started = std::chrono::steady_clock::now();
  const auto outcome = run_probe_child(command, request());
  EXPECT_EQ(outcome.status, ProbeStatus::kFailed);
  EXPECT_NE(outcome.error.find("no verdict within 1 s"), std::string::npos) << outcome.error;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(25));
}

}  // namespace
}  // namespace jetchar::experiments
