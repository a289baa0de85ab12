#include "sysfs/writer_lock.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "sysfs/error.h"
#include "sysfs/whole_file.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

using jetchar::testing::TempDir;
using ::testing::HasSubstr;

// A child process that takes the lock, says so through a pipe, then holds it until killed or
// for `hold_ms`.
pid_t hold_in_child(const std::filesystem::path& file, int hold_ms) {
  int ready[2];
  if (::pipe(ready) != 0) throw std::runtime_error("pipe");
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    try {
      const WriterLock lock(file, "the folder");
      (void)!::write(ready[1], "x", 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  EXPECT_EQ(::read(ready[0], &byte, 1), 1) << "the child did not take the lock";
  ::close(ready[0]);
  return child;
}

TEST(WriterLock, ASecondWriterIsRefusedNamingTheHoldersPidAndCommand) {
  const TempDir dir;
  const auto file = dir.path() / "lock";
  const pid_t holder = hold_in_child(file, 60000);
  try {
    const WriterLock second(file, "results directory runs");
    ADD_FAILURE() << "the second writer got the lock";
  } catch (const LockHeld& e) {
    EXPECT_EQ(e.holder_pid(), holder);
    EXPECT_THAT(e.what(), HasSubstr(fmt::format("results directory runs is in use by another jetchar process (pid {}: ",
                                                holder)));
    EXPECT_THAT(e.what(), HasSubstr("sysfs_tests"));  // the holder's command line
    EXPECT_THAT(e.what(), HasSubstr("--wait"));
  }
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
}

TEST(WriterLock, ALockOfAKilledHolderIsTakenAtOnceAndNamesTheNewHolder) {
  const TempDir dir;
  const auto file = dir.path() / "lock";
  const pid_t holder = hold_in_child(file, 60000);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  // The file still names the dead holder: only the kernel's lock decides.
  EXPECT_THAT(read_whole_file(file), HasSubstr(std::to_string(holder)));
  const WriterLock lock(file, "the folder");
  EXPECT_THAT(read_whole_file(file), ::testing::StartsWith(std::to_string(::getpid()) + "\n"));
}

TEST(WriterLock, WaitBlocksUntilTheHolderEnds) {
  const TempDir dir;
  const auto file = dir.path() / "lock";
  const auto began = std::chrono::steady_clock::now();
  const pid_t holder = hold_in_child(file, 300);
  const WriterLock lock(file, "the folder", WriterLock::Wait::kYes);
  int status = 0;
  ::waitpid(holder, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the holder ended without its lock";
  EXPECT_GE(std::chrono::steady_clock::now() - began, std::chrono::milliseconds(250));
}

TEST(WriterLock, AWaitEndsWhenItsStopSaysSo) {
  const TempDir dir;
  const auto file = dir.path() / "lock";
  const pid_t holder = hold_in_child(file, 60000);
  int asked = 0;
  EXPECT_THROW(WriterLock(file, "the folder", WriterLock::Wait::kYes, [&asked] { return ++asked == 3; }), WaitStopped);
  EXPECT_EQ(asked, 3);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
}

TEST(WriterLock, AFolderThatCannotHoldTheLockFileIsAnIoErrorNamingIt) {
  const TempDir dir;
  const auto file = dir.path() / "missing" / "lock";
  try {
    const WriterLock lock(file, "the folder");
    ADD_FAILURE() << "locked a file in a missing folder";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_THAT(e.what(), HasSubstr(file.string()));
  }
}

TEST(WriterLock, TheLockFollowsNoLinkPlantedInItsPlace) {
  const TempDir dir;
  const auto target = dir.write("precious", "keep me");
  std::filesystem::create_symlink(target, dir.path() / "lock");
  EXPECT_THROW(WriterLock(dir.path() / "lock", "the folder"), IoError);
  EXPECT_EQ(read_whole_file(target), "keep me");
}

}  // namespace
}  // namespace jetchar::sysfs
