#include "sysfs/output_file.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "sysfs/whole_file.h"
#include "tests/support/small_mount.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;
using jetchar::testing::SmallMount;
using jetchar::testing::TempDir;
using ::testing::HasSubstr;

std::vector<std::string> output_names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string refusal(const fs::path& output, const std::vector<fs::path>& inputs) {
  try {
    refuse_output_onto(output, inputs, "-o");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, AnOutputThatIsAnInputIsRefusedThroughLinksToo) {
  const TempDir dir;
  const auto input = dir.write("runs.csv", "a,b\n");
  EXPECT_THAT(refusal(input, {input}), HasSubstr("is the input"));
  fs::create_symlink(input, dir.path() / "link.csv");
  EXPECT_THAT(refusal(dir.path() / "link.csv", {input}), HasSubstr("is the input"));
  fs::create_hard_link(input, dir.path() / "hard.csv");
  EXPECT_THAT(refusal(dir.path() / "hard.csv", {input}), HasSubstr("is the input"));
  EXPECT_THAT(refusal(dir.path() / "." / "runs.csv", {input}), HasSubstr("nothing was written"));
  EXPECT_EQ(refusal(dir.path() / "other.csv", {input}), "");
}

TEST(OutputFile, AFileAResultsDirectoryKeepsIsRefusedBeforeItExists) {
  const TempDir dir;
  fs::create_directories(dir.path() / "m");
  dir.write("m/results.db", std::string("SQLite format 3\0", 16));
  for (const char* name : {"results.db", "results.db-wal", "journal", "sweep.textproto", "lock"}) {
    EXPECT_THAT(refusal(dir.path() / "m" / name, {dir.path() / "m"}), HasSubstr("of the input")) << name;
  }
  // Through a link to the folder.
  fs::create_directory_symlink(dir.path() / "m", dir.path() / "alias");
  EXPECT_THAT(refusal(dir.path() / "alias" / "results.db", {dir.path() / "m"}), HasSubstr("of the input"));
  EXPECT_EQ(refusal(dir.path() / "m" / "report.html", {dir.path() / "m"}), "");
  // The store named instead of its folder: the folder's files are inputs as well.
  EXPECT_THAT(refusal(dir.path() / "m" / "journal", {dir.path() / "m" / "results.db"}), HasSubstr("of the input"));
}

TEST(OutputFile, AnySqliteDatabaseAndAFolderAreRefused) {
  const TempDir dir;
  dir.write("other.db", std::string("SQLite format 3\0 and more", 25));
  EXPECT_THAT(refusal(dir.path() / "other.db", {}), HasSubstr("is an SQLite database"));
  EXPECT_THAT(refusal(dir.path(), {}), HasSubstr("is a directory"));
}

TEST(OutputFile, WritesWholeAndLeavesNothingElse) {
  const TempDir dir;
  write_output_file(dir.path() / "out.html", "old");
  write_output_file(dir.path() / "out.html", "new content");
  EXPECT_EQ(read_whole_file(dir.path() / "out.html"), "new content");
  EXPECT_EQ(output_names_in(dir.path()), std::vector<std::string>{"out.html"});
}

// The pid of a process that has ended and been reaped.
pid_t ended_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(OutputFile, TheNameAKilledWriterLeftIsRemovedByTheNextWriteAndALiveWritersIsKept) {
  const TempDir dir;
  const pid_t ended = ended_pid();
  const std::string gone = fmt::format(".out.html.{}-0", ended);
  const std::string alive = fmt::format(".out.html.{}-0", ::getppid());
  // Another output's abandoned name, and a name that is not one of the writer's.
  const std::string other = fmt::format(".other.html.{}-0", ended);
  const std::string unlike = fmt::format(".out.html.{}-0x", ended);
  for (const std::string& name : {gone, alive, other, unlike}) dir.write(name, "a killed writer's finished file");
  write_output_file(dir.path() / "out.html", "new content");
  EXPECT_EQ(read_whole_file(dir.path() / "out.html"), "new content");
  std::vector<std::string> expected = {alive, other, unlike, "out.html"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(output_names_in(dir.path()), expected);
}

TEST(OutputFile, AFullDiskKeepsTheEarlierOutputAndLeavesNoTemporaryFile) {
  const SmallMount mount(64);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  write_output_file(mount.path() / "out.csv", "earlier");
  mount.fill();
  try {
    write_output_file(mount.path() / "out.csv", std::string(256 * 1024, 'x'));
    ADD_FAILURE() << "a 256 KiB write fitted on a full 64 KiB disk";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_THAT(e.what(), HasSubstr(mount.path().string() + "/out.csv"));
  }
  EXPECT_EQ(read_whole_file(mount.path() / "out.csv"), "earlier");
  EXPECT_EQ(output_names_in(mount.path()), (std::vector<std::string>{"filler", "out.csv"}));
}

TEST(OutputFile, AReadOnlyFolderIsEROFSWithTheOutputAsItWas) {
  const SmallMount mount(64);
  if (!mount.available()) GTEST_SKIP() << mount.why_not();
  write_output_file(mount.path() / "out.csv", "earlier");
  mount.set_read_only(true);
  try {
    write_output_file(mount.path() / "out.csv", "new");
    ADD_FAILURE() << "wrote into a read-only file system";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EROFS);
  }
  EXPECT_EQ(read_whole_file(mount.path() / "out.csv"), "earlier");
  mount.set_read_only(false);
}

}  // namespace
}  // namespace jetchar::sysfs
