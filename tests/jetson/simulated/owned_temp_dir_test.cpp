#include "jetson/simulated/owned_temp_dir.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/jetchar_cli.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A child process makes a folder and is SIGKILLed holding it, as a killed jetchar would be.
fs::path folder_of_a_killed_owner(std::string_view prefix) {
  int link[2];
  EXPECT_EQ(::pipe(link), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(link[0]);
    OwnedTempDir dir{prefix};
    const std::string path = dir.path().string();
    if (::write(link[1], path.data(), path.size()) != static_cast<ssize_t>(path.size())) ::_exit(2);
    ::close(link[1]);
    ::raise(SIGKILL);
  }
  ::close(link[1]);
  std::string path(4096, '\0');
  const ssize_t n = ::read(link[0], path.data(), path.size());
  ::close(link[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  path.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return path;
}

TEST(OwnedTempDir, IsRemovedWithItsOwnerFileWhenLetGo) {
  testing::TempDir parent;
  const testing::ScopedEnv tmpdir("TMPDIR", parent.path());
  {
    OwnedTempDir dir("jetchar-sim");
    ASSERT_EQ(dir.path().parent_path(), parent.path());
    std::ofstream(dir.path() / "file") << "x";
    EXPECT_EQ(names_in(parent.path()), (std::vector<std::string>{dir.path().filename().string(),
                                                                 dir.path().filename().string() + ".jetchar-owner"}));
    OwnedTempDir moved = std::move(dir);
    EXPECT_TRUE(fs::exists(moved.path() / "file"));
  }
  EXPECT_TRUE(names_in(parent.path()).empty());
}

TEST(OwnedTempDir, AKilledOwnersFolderIsRemovedByTheNextAndNoOtherIs) {
  testing::TempDir parent;
  const testing::ScopedEnv tmpdir("TMPDIR", parent.path());
  const OwnedTempDir alive("jetchar-sim");  // held by this process: its folder stays
  const fs::path orphan = folder_of_a_killed_owner("jetchar-sim");
  ASSERT_FALSE(orphan.empty());
  std::ofstream(orphan / "rail") << "1234\n";
  ASSERT_TRUE(fs::exists(orphan.string() + ".jetchar-owner"));

  fs::create_directory(parent.path() / "jetchar-sim-legacy");       // no owner file: left alone
  fs::create_directory(parent.path() / "jetchar-sim-other.owner");  // not an owner file's name
  // A link planted beside an unlocked owner file: the folder it points to is not removed.
  testing::TempDir elsewhere;
  std::ofstream(elsewhere.path() / "keep") << "mine";
  fs::create_directory_symlink(elsewhere.path(), parent.path() / "jetchar-sim-link");
  std::ofstream(parent.path() / "jetchar-sim-link.jetchar-owner") << "";

  EXPECT_EQ(remove_orphaned_temp_dirs(parent.path()), 2u);  // the orphan's owner file and the link's
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_FALSE(fs::exists(orphan.string() + ".jetchar-owner"));
  EXPECT_TRUE(fs::exists(alive.path()));
  EXPECT_TRUE(fs::exists(alive.path().string() + ".jetchar-owner"));
  EXPECT_TRUE(fs::exists(parent.path() / "jetchar-sim-legacy"));
  EXPECT_TRUE(fs::exists(parent.path() / "jetchar-sim-other.owner"));
  EXPECT_TRUE(fs::exists(elsewhere.path() / "keep"));

  // Making a folder sweeps the same way, whatever the orphan's prefix.
  const fs::path killed_board = folder_of_a_killed_owner("jetchar-board");
  ASSERT_TRUE(fs::exists(killed_board));
  const OwnedTempDir next("jetchar-sim");
  EXPECT_FALSE(fs::exists(killed_board));
  EXPECT_TRUE(fs::exists(alive.path()));
}

// Through the real binary: a simulated run SIGKILLed mid-way leaves its board folder (about 1 MB);
// the next simulated command removes it, and its own, and nothing else remains.
TEST(OwnedTempDirIntegration, ASimulatedRunKilledMidWayLeavesNothingAfterTheNextCommand) {
  if (!fs::exists(testing::jetchar_executable())) GTEST_SKIP() << testing::jetchar_executable() << " is not built";
  testing::TempDir parent;
  const testing::ScopedEnv tmpdir("TMPDIR", parent.path());
  const pid_t monitor = testing::spawn_jetchar({"monitor", "--board", "sim:agx-orin-r36", "--duration", "60"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (names_in(parent.path()).size() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // into the sampling
  ::kill(monitor, SIGKILL);
  EXPECT_EQ(testing::wait_exit_status(monitor), 128 + SIGKILL);
  const auto left = names_in(parent.path());
  ASSERT_EQ(left.size(), 2u) << "the killed run's folder and its owner file";
  EXPECT_TRUE(left[0].starts_with("jetchar-sim-"));
  EXPECT_EQ(left[1], left[0] + ".jetchar-owner");

  EXPECT_EQ(testing::run_jetchar({"device", "info", "--board", "sim:agx-orin-r36"}), 0);
  EXPECT_TRUE(names_in(parent.path()).empty());
}

}  // namespace
}  // namespace jetchar::jetson
