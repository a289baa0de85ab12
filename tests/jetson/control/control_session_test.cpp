// jetson/control/control_session.h: one process controls a board at a time, its first write is
// preceded by a snapshot of every control, and a second SIGINT while the main path is busy
// restores the board from the session's watcher thread and ends the process with 130.
#include "jetson/control/control_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "jetson/simulated/simulated_board.h"
#include "sysfs/attribute.h"
#include "sysfs/change_journal.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kCore = "/sys/devices/system/cpu/cpu3/online";

TEST(ControlSession, ASecondSignalWhileTheMainPathIsBusyRestoresTheBoardAndEnds130) {
  const SimulatedBoard sim("agx-orin-r36");
  const testing::TempDir state;
  ASSERT_EQ(sysfs::read_string(sim.root(), kCore), "1");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    ControlSession session(sim.root(), state.path());
    session.journal().write(kCore, "0\n");
    (void)!::write(ready[1], "x", 1);
    // The main path busy in one long step (a minibatch), never looking at the signal.
    std::this_thread::sleep_for(60s);
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the child did not write";
  ::close(ready[0]);
  EXPECT_EQ(sysfs::read_string(sim.root(), kCore), "0");
  ::kill(child, SIGINT);
  std::this_thread::sleep_for(100ms);
  ::kill(child, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130) << "the child waited out its minibatch";
  EXPECT_EQ(sysfs::read_string(sim.root(), kCore), "1");
  EXPECT_FALSE(fs::exists(sysfs::journal_file(state.path())));
  EXPECT_FALSE(fs::exists(sysfs::snapshot_file(state.path())));
}

TEST(ControlSession, TheFirstWriteIsPrecededByASnapshotOfEveryControl) {
  const SimulatedBoard sim("agx-orin-r36");
  const testing::TempDir state;
  ControlSession session(sim.root(), state.path());
  EXPECT_FALSE(fs::exists(sysfs::snapshot_file(state.path())));
  session.journal().write(kCore, "0\n");
  const auto snapshot = sysfs::read_journal(sysfs::snapshot_file(state.path()));
  EXPECT_GT(snapshot.entries.size(), 10U);
  bool has_core = false;
  for (const auto& entry : snapshot.entries) has_core = has_core || (entry.path == kCore && entry.original == "1\n");
  EXPECT_TRUE(has_core) << "the snapshot lacks the core's value from before the write";
  session.restore();
  EXPECT_FALSE(fs::exists(sysfs::snapshot_file(state.path())));
}

TEST(ControlSession, ASecondSessionOnTheBoardIsRefusedNamingTheFirst) {
  const SimulatedBoard sim("agx-orin-r36");
  const testing::TempDir state;
  const ControlSession first(sim.root(), state.path());
  try {
    const ControlSession second(sim.root(), state.path());
    ADD_FAILURE() << "two sessions control one board";
  } catch (const sysfs::LockHeld& e) {
    EXPECT_EQ(e.holder_pid(), ::getpid());
    EXPECT_THAT(e.what(), ::testing::HasSubstr("the board (change journal in " + state.path().string()));
  }
}

}  // namespace
}  // namespace jetchar::jetson
