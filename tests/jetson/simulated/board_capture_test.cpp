#include "jetson/simulated/board_capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "jetson/discovery/board_info.h"
#include "jetson/simulated/board_fixture.h"
#include "sysfs/attribute.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using jetchar::jetson::BoardCapture;
using jetchar::jetson::capture_board;
using jetchar::jetson::CaptureOptions;
using jetchar::jetson::ExpandedFixture;
using jetchar::jetson::FixtureManifest;
using jetchar::testing::TempDir;
using ::testing::HasSubstr;

namespace {

// One entry of a tree as `ls -l` would tell it: kind, mode, and the bytes or the link target.
struct Node {
  char kind = '?';
  unsigned mode = 0;
  std::string content;
  bool operator==(const Node&) const = default;
};

std::map<std::string, Node> snapshot(const fs::path& root) {
  std::map<std::string, Node> tree;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path path = it->path();
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    Node node;
    node.mode = st.st_mode & 07777;
    if (S_ISLNK(st.st_mode)) {
      node.kind = 'l';
      node.mode = 0;
      node.content = fs::read_symlink(path).string();
    } else if (S_ISDIR(st.st_mode)) {
      node.kind = 'd';
    } else {
      node.kind = 'f';
      std::ifstream in(path, std::ios::binary);
      node.content.assign(std::istreambuf_iterator<char>(in), {});
    }
    tree["/" + path.lexically_relative(root).string()] = node;
  }
  return tree;
}

fs::path expand_capture(const BoardCapture& capture, const TempDir& dir) {
  fs::path root = dir.path() / "root";
  fs::create_directories(root);
  FixtureManifest::parse(capture.manifest, dir.path(), "capture.manifest").expand(root);
  return root;
}

void expect_same_nodes(const std::map<std::string, Node>& expected, const std::map<std::string, Node>& actual,
                       const std::string& what) {
  for (const auto& [path, node] : expected) {
    const auto it = actual.find(path);
    if (it == actual.end()) {
      ADD_FAILURE() << what << ": " << path << " is missing from the capture";
      continue;
    }
    EXPECT_EQ(it->second.kind, node.kind) << what << ": " << path;
    EXPECT_EQ(it->second.content, node.content) << what << ": " << path;
    EXPECT_EQ(it->second.mode, node.mode)
        << what << ": " << path << std::oct << " modes " << it->second.mode << " vs " << node.mode;
  }
  for (const auto& [path, node] : actual) {
    EXPECT_TRUE(expected.count(path) != 0) << what << ": " << path << " is in the capture but not on the board";
  }
}

class CaptureRoundTrip : public ::testing::TestWithParam<std::string> {};

// Capturing an expanded fixture and expanding the capture again gives the same tree, byte for
// byte, permissions, links and injected errors included.
TEST_P(CaptureRoundTrip, ExpandingTheCaptureGivesTheSameTree) {
  const ExpandedFixture fixture(GetParam());
  CaptureOptions options;
  options.redact = false;
  const BoardCapture capture = capture_board(jetchar::sysfs::Root(fixture.root_dir()), options);
  TempDir dir;
  const fs::path copy = expand_capture(capture, dir);
  expect_same_nodes(snapshot(fixture.root_dir()), snapshot(copy), GetParam());
  EXPECT_GT(capture.files, 50u);
}

// With redaction (the default) only the serial number changes, and keeps its shape.
TEST_P(CaptureRoundTrip, RedactionReplacesOnlyTheSerialNumber) {
  const ExpandedFixture fixture(GetParam());
  const BoardCapture capture = capture_board(jetchar::sysfs::Root(fixture.root_dir()));
  TempDir dir;
  const fs::path copy = expand_capture(capture, dir);
  auto expected = snapshot(fixture.root_dir());
  const std::string serial = "/sys/firmware/devicetree/base/serial-number";
  if (expected.count(serial) != 0) {
    expected[serial].content = std::string("REDACTED\0", 9);
    EXPECT_THAT(capture.notes, ::testing::Contains(HasSubstr("serial-number: redacted")));
  }
  expect_same_nodes(expected, snapshot(copy), GetParam());
}

INSTANTIATE_TEST_SUITE_P(AllBoards, CaptureRoundTrip, ::testing::ValuesIn(jetchar::jetson::list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// This machine is no Jetson: the capture still works, says what is absent, and jetchar discovers
// the captured copy as it discovers the machine.
TEST(CaptureThisMachine, WorksAndSaysWhatIsAbsent) {
  const jetchar::sysfs::Root host("/");
  const BoardCapture capture = capture_board(host);
  EXPECT_GT(capture.files, 5u);
  EXPECT_THAT(capture.manifest, HasSubstr("file /sys/devices/system/cpu/online = "));
  EXPECT_THAT(capture.manifest, HasSubstr("/proc/stat"));
  EXPECT_THAT(capture.absent, ::testing::Contains(HasSubstr("INA3221")));
  TempDir dir;
  const fs::path copy = expand_capture(capture, dir);
  const auto original = jetchar::jetson::discover_board_info(host);
  const auto captured = jetchar::jetson::discover_board_info(jetchar::sysfs::Root(copy));
  EXPECT_EQ(captured.identity.kind, original.identity.kind);
  EXPECT_EQ(captured.cpu.possible, original.cpu.possible);
  EXPECT_EQ(captured.cpu.policies.size(), original.cpu.policies.size());
  EXPECT_EQ(captured.thermal.zones.size(), original.thermal.zones.size());
}

// A read that fails on the board is captured as the failure, not as an empty value.
TEST(CaptureFailingReads, BecomeFailReadLines) {
  TempDir dir;
  FixtureManifest::parse(
      "file /sys/devices/system/cpu/online = 0-1\n"
      "repeat C in 0-1\n"
      "link /sys/devices/system/cpu/cpu{C}/cpufreq -> ../cpufreq/policy0\n"
      "end\n"
      "file /sys/devices/system/cpu/cpufreq/policy0/related_cpus = 0 1\n"
      "file /sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies = 1 2\\x20\n"
      "fail-read /sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies = ENODEV\n"
      "mode /sys/devices/system/cpu/cpufreq/policy0/related_cpus = 0444\n",
      dir.path(), "test.manifest")
      .expand(dir.path());
  const BoardCapture capture = capture_board(jetchar::sysfs::Root(dir.path()));
  EXPECT_THAT(capture.manifest,
              HasSubstr("file /sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies = 1 2\\x20\n"
                        "fail-read /sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies = ENODEV\n"));
  EXPECT_THAT(capture.manifest, HasSubstr("mode /sys/devices/system/cpu/cpufreq/policy0/related_cpus = 0444\n"));
  EXPECT_THAT(capture.manifest, HasSubstr("link /sys/devices/system/cpu/cpu1/cpufreq -> ../cpufreq/policy0\n"));
  EXPECT_EQ(capture.failing_reads, 1u);
}

}  // namespace
