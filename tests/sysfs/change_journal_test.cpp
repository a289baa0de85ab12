#include "sysfs/change_journal.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every regular file under `dir` with its exact bytes.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files[entry.path().lexically_relative(dir).string()] = slurp(entry.path());
  }
  return files;
}

class ChangeJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    board.write("sys/cpu/cpu1/online", "1\n");
    board.write("sys/cpu/policy0/scaling_max_freq", "2201600\n");
    board.write("sys/cpu/policy0/scaling_governor", "schedutil\n");
    board.write("sys/odd", "tab\there\\ and \x01 bytes\nsecond line\n");
    fs::create_directory_symlink("/sys/cpu/policy0", board.path() / "sys/cpu/cpu0");
  }

  testing::TempDir board;
  testing::TempDir state;
  Root root{board.path()};
  fs::path state_dir = state.path() / "var/lib/jetchar";
};

TEST_F(ChangeJournalTest, RecordsOriginalsOnceAndRestoresExactly) {
  const auto before = tree(board.path());
  {
    ChangeJournal journal(root, state_dir);
    EXPECT_FALSE(fs::exists(journal.file())) << "no file until the first write";
    journal.write("/sys/cpu/cpu0/scaling_max_freq", "1113600\n", Verify::kReadBack);
    journal.write("/sys/cpu/policy0/scaling_max_freq", "729600\n");  // same file through the symlink
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/odd", "x");
    ASSERT_EQ(journal.entries().size(), 3u);
    EXPECT_EQ(journal.entries()[0].path, "/sys/cpu/policy0/scaling_max_freq");
    EXPECT_EQ(journal.entries()[0].original, "2201600\n");
    EXPECT_EQ(read_string(root, "/sys/cpu/policy0/scaling_max_freq"), "729600");
    EXPECT_EQ(journal.restore(), 3u);
    EXPECT_FALSE(fs::exists(journal.file()));
  }
  EXPECT_EQ(tree(board.path()), before);
}

TEST_F(ChangeJournalTest, JournalOnDiskSurvivesTheProcessAndIsPendingAfterIt) {
  const auto before = tree(board.path());
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/odd", "changed\n");
    // While this process holds the journal it is not "pending".
    EXPECT_EQ(find_pending_journal(state_dir), std::nullopt);
    EXPECT_THROW(ChangeJournal(root, state_dir), std::runtime_error);
  }  // no restore: as if the process died
  const auto pending = find_pending_journal(state_dir);
  ASSERT_TRUE(pending.has_value());
  EXPECT_EQ(pending->root_prefix, root.prefix());
  ASSERT_EQ(pending->entries.size(), 2u);
  EXPECT_EQ(pending->entries[1].original, "tab\there\\ and \x01 bytes\nsecond line\n");

  // The next process continues the journal: the first originals stay the ones to restore.
  ChangeJournal next(root, state_dir);
  EXPECT_TRUE(next.continued_pending());
  next.write("/sys/odd", "again\n");
  next.write("/sys/cpu/policy0/scaling_governor", "performance\n");
  EXPECT_EQ(next.entries().size(), 3u);
  next.restore();
  EXPECT_EQ(tree(board.path()), before);
}

TEST_F(ChangeJournalTest, TornLastRecordIsDroppedAndTheJournalContinues) {
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
  }
  const fs::path file = journal_file(state_dir);
  const std::string intact = slurp(file);
  for (const std::string& tail : {std::string("/sys/odd\tpartial"), std::string(16, '\0')}) {
    SCOPED_TRACE(tail);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << intact << tail;
    const auto contents = read_journal(file);
    EXPECT_TRUE(contents.torn_tail);
    EXPECT_EQ(contents.entries.size(), 1u);
  }
  {
    ChangeJournal journal(root, state_dir);  // truncates the torn record
    EXPECT_EQ(slurp(file), intact);
    journal.write("/sys/odd", "y\n");
    EXPECT_EQ(read_journal(file).entries.size(), 2u);
    EXPECT_FALSE(read_journal(file).torn_tail);
    journal.restore();
  }
  EXPECT_EQ(read_string(root, "/sys/cpu/cpu1/online"), "1");
}

TEST_F(ChangeJournalTest, TornHeaderMeansNothingWasWritten) {
  fs::create_directories(state_dir);
  std::ofstream(journal_file(state_dir), std::ios::binary) << "jetchar-change-jour";
  EXPECT_EQ(find_pending_journal(state_dir), std::nullopt);
  ChangeJournal journal(root, state_dir);
  EXPECT_FALSE(journal.continued_pending());
  journal.write("/sys/cpu/cpu1/online", "0\n");
  EXPECT_EQ(read_journal(journal_file(state_dir)).entries.size(), 1u);
}

TEST_F(ChangeJournalTest, CorruptionBeforeTheLastRecordIsAnError) {
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/odd", "y\n");
  }
  std::string content = slurp(journal_file(state_dir));
  content[content.find("/sys/cpu/cpu1") + 5] = 'X';
  std::ofstream(journal_file(state_dir), std::ios::binary | std::ios::trunc) << content;
  EXPECT_THROW(read_journal(journal_file(state_dir)), FormatError);
}

// An append is one write(2) ending in its newline: a whole last line whose checksum fails was
// changed after it was written (a flipped bit, an edit), and is damage, not a torn append.
TEST_F(ChangeJournalTest, AWholeLastRecordWithABadChecksumIsDamageAndTheJournalIsKept) {
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/odd", "y\n");
  }
  const fs::path file = journal_file(state_dir);
  std::string content = slurp(file);
  const std::size_t at = content.rfind("/sys/odd");
  content[at + 2] ^= 0x01;
  const auto line =
      static_cast<std::size_t>(std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(at), '\n')) +
      1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  try {
    (void)read_journal(file);
    ADD_FAILURE() << "a damaged last record was taken for a torn append";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.line(), line);
    EXPECT_NE(std::string(e.what()).find("checksum fails"), std::string::npos) << e.what();
  }
  EXPECT_THROW((ChangeJournal{root, state_dir}), FormatError);
  EXPECT_EQ(slurp(file), content);
}

// A session snapshots every control it may touch before its first write; restore() writes back
// whatever still differs from that snapshot once the journal's originals are back (a record lost),
// and removes the snapshot with the journal.
TEST_F(ChangeJournalTest, RestoreBringsBackFromTheSnapshotWhatTheJournalLost) {
  const auto before = tree(board.path());
  std::vector<JournalEntry> controls = {{"/sys/cpu/cpu1/online", "1\n"},
                                        {"/sys/cpu/policy0/scaling_max_freq", "2201600\n"},
                                        {"/sys/cpu/policy0/scaling_governor", "schedutil\n"}};
  {
    ChangeJournal journal(root, state_dir);
    int taken = 0;
    journal.set_snapshot_source([&] {
      ++taken;
      return controls;
    });
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/cpu/policy0/scaling_governor", "performance\n");
    EXPECT_EQ(taken, 1) << "the snapshot is taken once, before the first write";
    EXPECT_EQ(read_journal(snapshot_file(state_dir)).entries.size(), 3u);
  }
  // The journal loses its last record (cut by hand); the change it recorded stays on the board.
  const fs::path file = journal_file(state_dir);
  std::string content = slurp(file);
  content.resize(content.rfind("/sys/cpu/policy0") + 5);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  ChangeJournal next(root, state_dir);
  EXPECT_EQ(next.entries().size(), 1u);
  next.restore();
  EXPECT_EQ(next.repaired_from_snapshot(), std::vector<std::string>{"/sys/cpu/policy0/scaling_governor"});
  EXPECT_EQ(tree(board.path()), before);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(snapshot_file(state_dir)));
}

TEST_F(ChangeJournalTest, ADamagedJournalIsRestoredFromTheSnapshotAndKeptAside) {
  const auto before = tree(board.path());
  {
    ChangeJournal journal(root, state_dir);
    journal.set_snapshot_source([] {
      return std::vector<JournalEntry>{{"/sys/cpu/cpu1/online", "1\n"},
                                       {"/sys/odd", "tab\there\\ and \x01 bytes\nsecond line\n"}};
    });
    journal.write("/sys/cpu/cpu1/online", "0\n");
    journal.write("/sys/odd", "y\n");
  }
  const fs::path file = journal_file(state_dir);
  std::string content = slurp(file);
  content[content.find("/sys/cpu/cpu1") + 3] = 'X';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  const auto restored = restore_from_snapshot(root, state_dir);
  EXPECT_EQ(restored.controls, 2u);
  EXPECT_EQ(restored.rewritten, (std::vector<std::string>{"/sys/cpu/cpu1/online", "/sys/odd"}));
  EXPECT_EQ(tree(board.path()), before);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(slurp(restored.kept_journal), content);
  EXPECT_EQ(find_pending_journal(state_dir), std::nullopt);

  // Damaged again: the first damaged journal stays beside the second.
  {
    ChangeJournal journal(root, state_dir);
    journal.set_snapshot_source([] { return std::vector<JournalEntry>{{"/sys/cpu/cpu1/online", "1\n"}}; });
    journal.write("/sys/cpu/cpu1/online", "0\n");
  }
  std::string again = slurp(file);
  again[again.find("/sys/cpu/cpu1") + 3] = 'Y';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << again;
  const auto second = restore_from_snapshot(root, state_dir);
  EXPECT_EQ(second.kept_journal, state_dir / "change-journal.damaged.2");
  EXPECT_EQ(slurp(state_dir / "change-journal.damaged"), content);
  EXPECT_EQ(tree(board.path()), before);
}

TEST_F(ChangeJournalTest, ADamagedJournalWithoutASnapshotIsKeptWhereItIs) {
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
  }
  const fs::path file = journal_file(state_dir);
  std::string content = slurp(file);
  content[content.find("/sys/cpu/cpu1") + 3] = 'X';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  EXPECT_THROW(restore_from_snapshot(root, state_dir), std::runtime_error);
  EXPECT_EQ(slurp(file), content);
  EXPECT_EQ(read_string(root, "/sys/cpu/cpu1/online"), "0");
}

// Only what a power loss can leave is a torn append: zero bytes, or the start of the header or of
// a record. A file of other content is no journal of ours (or a damaged one): it is refused and
// kept, never taken for "torn by the crash" and deleted.
TEST_F(ChangeJournalTest, GarbageIsRefusedAndKeptNotTakenForATornAppend) {
  fs::create_directories(state_dir);
  const fs::path file = journal_file(state_dir);
  std::string header;
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
    header = slurp(file).substr(0, slurp(file).find('\n') + 1);
    journal.restore();
  }
  for (const std::string& content : {std::string("garbage\n"), std::string("hello world"),
                                     std::string("\x01\x02binary"), header + "hello world\n", header + "not a path"}) {
    SCOPED_TRACE(content);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
    EXPECT_THROW(read_journal(file), FormatError);
    EXPECT_THROW(find_pending_journal(state_dir), FormatError);
    EXPECT_THROW((ChangeJournal{root, state_dir}), FormatError);
    EXPECT_EQ(slurp(file), content);
  }
}

TEST_F(ChangeJournalTest, JournalForAnotherRootIsRefused) {
  {
    ChangeJournal journal(root, state_dir);
    journal.write("/sys/cpu/cpu1/online", "0\n");
  }
  testing::TempDir other_board;
  const Root other(other_board.path());
  try {
    ChangeJournal journal(other, state_dir);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds changes to the board under"), std::string::npos) << e.what();
  }
}

TEST_F(ChangeJournalTest, RestoreThatCannotWriteKeepsTheJournal) {
  ChangeJournal journal(root, state_dir);
  journal.write("/sys/odd", "y\n");
  fs::remove(board.path() / "sys/odd");
  fs::create_directory(board.path() / "sys/odd");  // cannot be written any more
  EXPECT_THROW(journal.restore(), RestoreIncomplete);
  EXPECT_TRUE(fs::exists(journal.file()));
}

TEST_F(ChangeJournalTest, UnreadableOriginalStopsBeforeTheWrite) {
  ChangeJournal journal(root, state_dir);
  EXPECT_THROW(journal.write("/sys/missing", "1\n"), IoError);
  EXPECT_TRUE(journal.empty());
}

TEST_F(ChangeJournalTest, SnapshotFilesRoundTripAndRestore) {
  const auto before = tree(board.path());
  std::vector<JournalEntry> entries;
  for (const char* path : {"/sys/cpu/cpu1/online", "/sys/cpu/cpu0/scaling_max_freq", "/sys/odd"}) {
    entries.push_back({root.canonical(path), read_raw_attribute(root, path)});
  }
  const fs::path file = state.path() / "snapshot";
  write_journal_file(file, root.prefix(), entries);
  EXPECT_FALSE(fs::exists(state.path() / "snapshot.tmp"));
  const auto back = read_journal(file);
  EXPECT_EQ(back.root_prefix, root.prefix());
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_EQ(back.entries[2].original, "tab\there\\ and \x01 bytes\nsecond line\n");
  write_string(root, "/sys/odd", "changed");
  write_string(root, "/sys/cpu/cpu1/online", "0");
  EXPECT_EQ(restore_entries(root, back.entries, file), 3u);
  EXPECT_EQ(tree(board.path()), before);
}

// A real process killed with SIGKILL right after each write: the journal on disk always lets the
// next process restore the tree byte for byte.
std::size_t g_kill_after = 0;
void kill_hook(std::size_t writes) {
  if (writes == g_kill_after) ::kill(::getpid(), SIGKILL);
}

TEST_F(ChangeJournalTest, KilledAtEveryWriteBoundaryRestoresExactly) {
  const auto before = tree(board.path());
  const std::vector<std::pair<std::string, std::string>> writes = {
      {"/sys/cpu/cpu1/online", "0\n"},
      {"/sys/cpu/cpu0/scaling_max_freq", "729600\n"},
      {"/sys/cpu/policy0/scaling_governor", "performance\n"},
      {"/sys/odd", "z\n"},
      {"/sys/cpu/cpu1/online", "1\n"}};
  for (std::size_t kill_after = 0; kill_after <= writes.size(); ++kill_after) {
    SCOPED_TRACE(kill_after);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      g_kill_after = kill_after;
      ChangeJournal journal(root, state_dir);
      journal.set_after_write_hook(kill_hook);
      for (const auto& [path, value] : writes) journal.write(path, value);
      ::_exit(0);  // only reached when kill_after == 0 (no kill)
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (kill_after == 0) {
      EXPECT_TRUE(WIFEXITED(status));
    } else {
      ASSERT_TRUE(WIFSIGNALED(status));
      EXPECT_EQ(WTERMSIG(status), SIGKILL);
      EXPECT_TRUE(find_pending_journal(state_dir).has_value());
    }
    ChangeJournal journal(root, state_dir);
    journal.restore();
    EXPECT_EQ(tree(board.path()), before);
    EXPECT_FALSE(fs::exists(journal_file(state_dir)));
  }
}

}  // namespace
}  // namespace jetchar::sysfs
