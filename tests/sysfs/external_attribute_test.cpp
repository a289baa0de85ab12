// Controls owned by another library ("scheme:path") in the change journal: journalled before the
// write, restored by a later journal (another process after a crash), torn appends recognised,
// and an entry nobody can write back reported, with the journal kept.
#include "sysfs/external_attribute.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string_view>

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
  register_external_attributes("testlib", handler);
  // The same controls as NVML's behave: reset to the driver's defaults at every boot.
  handler.reset_at_boot = true;
  register_external_attributes("bootlib", std::move(handler));
}

std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t hash = 2166136261u;
  for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return hash;
}

class ExternalAttributeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    register_test_scheme();
    controls() = {{"testlib:gpu0/limit", "250000"}, {"testlib:locked", "reset"}, {"bootlib:gpu0/limit", "250000"}};
  }
  // The tree's boot id, as the kernel prints it (sysfs/boot_id.h); changing it is a reboot.
  void boot(std::string_view id) {
    std::filesystem::create_directories(board.path() / "proc/sys/kernel/random");
    std::ofstream(board.path() / "proc/sys/kernel/random/boot_id") << id << "\n";
  }
  static constexpr std::string_view kBootA = "9f1c2a4e-5b7d-4e8f-a0b1-c2d3e4f5a6b7";
  static constexpr std::string_view kBootB = "0d6e2f31-8a4b-4c5d-9e6f-7a8b9c0d1e2f";
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

TEST_F(ExternalAttributeTest, AControlResetAtBootIsDroppedWhenTheRebootUndidIt) {
  boot(kBootA);
  std::filesystem::create_directories(board.path() / "sys/devices/test");
  std::ofstream(board.path() / "sys/devices/test/value") << "1\n";
  {
    ChangeJournal journal(root, state.path());
    journal.write("bootlib:gpu0/limit", "200000");
    journal.write("/sys/devices/test/value", "2");
  }  // killed; then the board reboots and the driver comes up with its default limit
  boot(kBootB);
  controls()["bootlib:gpu0/limit"] = "300000";
  const JournalContents contents = read_journal(journal_file(state.path()));
  ASSERT_EQ(contents.entries.size(), 2u);
  EXPECT_EQ(contents.entries[0].boot_id, kBootA);
  ChangeJournal next(root, state.path());
  EXPECT_EQ(next.restore(), 1u);  // the kernel file only
  EXPECT_THAT(next.reset_by_reboot(), ::testing::ElementsAre("bootlib:gpu0/limit"));
  EXPECT_EQ(controls()["bootlib:gpu0/limit"], "300000");
  std::ifstream value(board.path() / "sys/devices/test/value");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(value), {}), "1\n");
  EXPECT_FALSE(std::filesystem::exists(journal_file(state.path())));
}

TEST_F(ExternalAttributeTest, InTheSameBootAControlResetAtBootIsRestored) {
  boot(kBootA);
  {
    ChangeJournal journal(root, state.path());
    journal.write("bootlib:gpu0/limit", "200000");
  }
  ChangeJournal next(root, state.path());
  EXPECT_EQ(next.restore(), 1u);
  EXPECT_TRUE(next.reset_by_reboot().empty());
  EXPECT_EQ(controls()["bootlib:gpu0/limit"], "250000");
}

TEST_F(ExternalAttributeTest, AJournalContinuedAfterARebootKeepsThisBootsOriginal) {
  boot(kBootA);
  {
    ChangeJournal journal(root, state.path());
    journal.write("bootlib:gpu0/limit", "200000");
  }
  boot(kBootB);
  controls()["bootlib:gpu0/limit"] = "300000";
  {
    ChangeJournal journal(root, state.path());  // a sweep in the new boot continues the journal
    EXPECT_TRUE(journal.continued_pending());
    EXPECT_FALSE(journal.recorded("bootlib:gpu0/limit"));
    journal.write("bootlib:gpu0/limit", "150000");
  }
  const JournalContents contents = read_journal(journal_file(state.path()));
  ASSERT_EQ(contents.entries.size(), 2u);
  EXPECT_EQ(contents.entries[1].original, "300000");
  EXPECT_EQ(contents.entries[1].boot_id, kBootB);
  ChangeJournal next(root, state.path());
  EXPECT_EQ(next.restore(), 1u);
  EXPECT_EQ(controls()["bootlib:gpu0/limit"], "300000");
}

TEST_F(ExternalAttributeTest, AVersion1JournalHasNoBootTagsAndIsRestoredWhole) {
  boot(kBootB);
  const std::string header = "jetchar-change-journal 1\t" + root.prefix().string();
  const std::string entry = "bootlib:gpu0/limit\t250000";
  std::ofstream(journal_file(state.path()))
      << fmt::format("{}\t{:08x}\n{}\t{:08x}\n", header, fnv1a(header), entry, fnv1a(entry));
  controls()["bootlib:gpu0/limit"] = "200000";
  ChangeJournal journal(root, state.path());
  EXPECT_EQ(journal.restore(), 1u);
  EXPECT_EQ(controls()["bootlib:gpu0/limit"], "250000");
}

TEST_F(ExternalAttributeTest, ATornBootTagIsATornAppend) {
  boot(kBootA);
  {
    ChangeJournal journal(root, state.path());
    journal.write("bootlib:gpu0/limit", "200000");
  }
  std::ofstream(journal_file(state.path()), std::ios::app) << "@bo";
  const JournalContents contents = read_journal(journal_file(state.path()));
  EXPECT_TRUE(contents.torn_tail);
  EXPECT_EQ(contents.entries.size(), 1u);
}

}  // namespace
}  // namespace jetchar::sysfs
