// Controls owned by another library ("scheme:path") in the change journal: journalled before the
// write, restored by a later journal (another process after a crash), torn appends recognised,
// and an entry nobody can write back reported, with the journal kept.
#include "sysfs/external_attribute.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <stdexcept>

#include "sysfs/change_journal.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

using ::testing::HasSubstr;

// A library's controls: a map, plus a write-only one that reads as its reset state.
std::map<std::string, std::string>& controls() {
  static std::map<std::string, std::string> values;
  return values;
}

void register_test_scheme() {
  ExternalAttributeHandler handler;
  handler.read = [](const std::string& path) {
    const auto it = controls().find(path);
    if (it == controls().end()) throw std::runtime_error(path + ": no such control");
    return path == "testlib:locked" ? std::string("reset") : it->second;
  };
  handler.write = [](const std::string& path, const std::string& value) {
    if (value == "refuse") throw std::runtime_error(path + " = refuse: refused");
    controls()[path] = value;
  };
  handler.readable_back = [](const std::string& path) { return path != "testlib:locked"; };
  register_external_attributes("testlib", std::move(handler));
}

class ExternalAttributeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_test_scheme();
    controls() = {{"testlib:gpu0/limit", "250000"}, {"testlib:locked", "reset"}};
  }
  testing::TempDir board, state;
  Root root{board.path()};
};

TEST_F(ExternalAttributeTest, SchemesAreRecognisedAndUnregisteredOnesNamed) {
  EXPECT_TRUE(is_external_attribute("nvml:GPU-1/power_limit_mw"));
  EXPECT_TRUE(is_external_attribute("testlib:x"));
  EXPECT_FALSE(is_external_attribute("/sys/devices/system/cpu/cpu1/online"));
  EXPECT_FALSE(is_external_attribute(":x"));
  EXPECT_FALSE(is_external_attribute("a/b:c"));
  EXPECT_THAT([] { external_attribute_handler("nosuch:x"); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("no handler for 'nosuch:' controls")));
}

TEST_F(ExternalAttributeTest, TheOriginalIsJournalledAndRestoredByTheNextProcess) {
  {
    ChangeJournal journal(root, state.path());
    journal.write("testlib:gpu0/limit", "200000");
    journal.write("testlib:gpu0/limit", "150000");
    journal.write("testlib:locked", "1200,1500");
    EXPECT_EQ(controls()["testlib:gpu0/limit"], "150000");
    ASSERT_EQ(journal.entries().size(), 2u);
    EXPECT_EQ(journal.entries()[0].original, "250000");
    EXPECT_EQ(journal.entries()[1].original, "reset");
  }  // the process "dies" without restoring
  const auto pending = find_pending_journal(state.path());
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->entries[0].path, "testlib:gpu0/limit");
  ChangeJournal next(root, state.path());
  EXPECT_TRUE(next.continued_pending());
  EXPECT_EQ(next.restore(), 2u);
  EXPECT_EQ(controls()["testlib:gpu0/limit"], "250000");
  EXPECT_EQ(controls()["testlib:locked"], "reset");
  EXPECT_FALSE(find_pending_journal(state.path()));
}

TEST_F(ExternalAttributeTest, ARefusedWriteThrowsTheLibrarysReason) {
  ChangeJournal journal(root, state.path());
  EXPECT_THAT([&] { journal.write("testlib:gpu0/limit", "refuse"); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("testlib:gpu0/limit = refuse: refused")));
}

TEST_F(ExternalAttributeTest, ATornExternalRecordIsDroppedNotRefused) {
  {
    ChangeJournal journal(root, state.path());
    journal.write("testlib:gpu0/limit", "200000");
  }
  std::ofstream(journal_file(state.path()), std::ios::app) << "testlib:gpu0/oth";
  const JournalContents contents = read_journal(journal_file(state.path()));
  EXPECT_TRUE(contents.torn_tail);
  EXPECT_EQ(contents.entries.size(), 1u);
}

TEST_F(ExternalAttributeTest, AnEntryNobodyCanWriteBackKeepsTheJournal) {
  write_journal_file(journal_file(state.path()), root.prefix(), {{"unknownlib:gpu0/limit", "1"}});
  ChangeJournal journal(root, state.path());
  EXPECT_THAT([&] { journal.restore(); },
              ::testing::ThrowsMessage<RestoreIncomplete>(HasSubstr("no handler for 'unknownlib:' controls")));
  EXPECT_TRUE(find_pending_journal(state.path()) || std::filesystem::exists(journal_file(state.path())));
}

}  // namespace
}  // namespace jetchar::sysfs
