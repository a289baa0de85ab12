#include "sysfs/whole_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "sysfs/error.h"
#include "sysfs/unique_fd.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

using jetchar::testing::TempDir;

TEST(WholeFile, ReadsAFileLargerThanOneReadBuffer) {
  const TempDir dir;
  std::string content;
  for (int i = 0; i < 5000; ++i) content += std::to_string(i) + (i % 7 == 0 ? '\0' : '\n');
  ASSERT_GT(content.size(), 4096U * 4);
  const auto file = dir.write("big", content);
  EXPECT_EQ(read_whole_file(file), content);  // every byte, NULs included
}

TEST(WholeFile, ReadsAnEmptyFile) {
  const TempDir dir;
  EXPECT_EQ(read_whole_file(dir.write("empty", "")), "");
}

TEST(WholeFile, ReadsProcfsWhoseSizeIsZero) {
  // /proc files stat as 0 bytes: a size-based read would return nothing.
  const std::string content = read_whole_file("/proc/self/status");
  EXPECT_NE(content.find("Name:"), std::string::npos);
}

TEST(WholeFile, AMissingFileIsAnErrorNamingIt) {
  const TempDir dir;
  const auto file = dir.path() / "absent";
  try {
    read_whole_file(file);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), file.string());
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST(WholeFile, AFileThatVanishedIsAnErrorNamingIt) {
  const TempDir dir;
  const auto file = dir.write("gone", "was here");
  std::filesystem::remove(file);
  try {
    read_whole_file(file);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), ENOENT);
    EXPECT_EQ(e.path(), file.string());
  }
}

TEST(WholeFile, AFileUnlinkedWhileOpenIsStillReadThroughItsDescriptor) {
  const TempDir dir;
  const auto file = dir.write("unlinked", "content");
  const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  std::filesystem::remove(file);
  EXPECT_EQ(read_to_end(fd.get(), "unlinked"), "content");
}

TEST(WholeFile, ADirectoryIsAnError) {
  const TempDir dir;
  try {
    read_whole_file(dir.path());
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), EISDIR);
  }
}

TEST(WholeFile, ABadDescriptorIsEbadfNamingTheName) {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::close(fd), 0);
  try {
    read_to_end(fd, "the-name");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.error_number(), EBADF);
    EXPECT_EQ(e.path(), "the-name");
    EXPECT_EQ(e.operation(), "read");
  }
}

struct BadSpec : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

TEST(WholeFile, ACallerCanTurnTheFailureIntoItsOwnError) {
  const TempDir dir;
  const auto file = dir.path() / "spec.textproto";
  try {
    read_whole_file(file, [](const IoError& e) { return BadSpec(std::string("the spec: ") + e.what()); });
    FAIL() << "no error";
  } catch (const BadSpec& e) {
    EXPECT_NE(std::string(e.what()).find("the spec: cannot read " + file.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ENOENT"), std::string::npos) << e.what();
  }
  // A file that is there is read as by the plain form.
  EXPECT_EQ(read_whole_file(dir.write("ok", "text"), [](const IoError& e) { return BadSpec(e.what()); }), "text");
}

std::atomic<int> g_interruptions{0};
extern "C" void count_interruption(int) { g_interruptions.fetch_add(1); }

TEST(WholeFile, ReadsInterruptedBySignalsAreRetried) {
  // A handler installed without SA_RESTART makes a blocked read(2) return EINTR. The reader blocks
  // on an empty pipe while another thread signals it several times, then writes and closes.
  struct sigaction action {};
  struct sigaction previous {};
  action.sa_handler = count_interruption;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  const UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  g_interruptions = 0;
  const pthread_t reader = ::pthread_self();
  std::thread writer([&] {
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ::pthread_kill(reader, SIGUSR1);
    }
    const std::string text = "after the signals";
    EXPECT_EQ(::write(write_end.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
    write_end.close();
  });
  const std::string content = read_to_end(read_end.get(), "pipe");
  writer.join();
  ::sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_EQ(content, "after the signals");
  EXPECT_EQ(g_interruptions.load(), 5);
}

// Leaves no temporary file beside it (sysfs/output_file.h writes ".NAME.XXXXXX" and renames it).
std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(WholeFile, ReplaceFileWritesTheNewContentAndLeavesNoTemporaryFile) {
  const TempDir dir;
  const auto file = dir.path() / "sweep.textproto";
  replace_file(file, "name: \"a\"\n");
  EXPECT_EQ(read_whole_file(file), "name: \"a\"\n");
  replace_file(file, std::string("b\0c", 3));
  EXPECT_EQ(read_whole_file(file), std::string("b\0c", 3));
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"sweep.textproto"});
}

TEST(WholeFile, ReplaceFileThatCannotWriteNamesTheFileAndKeepsTheOldOne) {
  const TempDir dir;
  const auto missing = dir.path() / "no-such-dir" / "file";
  try {
    replace_file(missing, "x");
    FAIL() << "no exception";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
    EXPECT_THAT(e.what(), ::testing::HasSubstr(missing.string() + ": cannot be written"));
  }
  const auto file = dir.path() / "kept";
  replace_file(file, "old");
  std::filesystem::create_directory(dir.path() / "sub");
  std::filesystem::rename(file, dir.path() / "sub" / "kept");
  ::chmod((dir.path() / "sub").c_str(), 0500);  // the temporary file cannot be created (root ignores it)
  if (::geteuid() != 0) {
    EXPECT_THROW(replace_file(dir.path() / "sub" / "kept", "new"), std::system_error);
    EXPECT_EQ(read_whole_file(dir.path() / "sub" / "kept"), "old");
  }
  ::chmod((dir.path() / "sub").c_str(), 0700);
}

}  // namespace
}  // namespace jetchar::sysfs
