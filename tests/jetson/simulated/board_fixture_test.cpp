#include "jetson/simulated/board_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/root.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using jetchar::jetson::ExpandedFixture;
using jetchar::jetson::FixtureEntry;
using jetchar::jetson::FixtureManifest;
using jetchar::testing::TempDir;
using ::testing::HasSubstr;

namespace {

std::string fixture_file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

FixtureManifest parse(std::string_view text) { return FixtureManifest::parse(text, "/nonexistent", "test.manifest"); }

std::string format_error_of(std::string_view text) {
  try {
    parse(text);
  } catch (const jetchar::sysfs::FormatError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(FixtureManifestTest, FileAddsNewlineRawDoesNotAndDtStringsAreNulTerminated) {
  const auto m = parse(
      "# comment\n\nfile /sys/a = 1 2 3\nraw /sys/b = x\ndtstrings /proc/c = nvidia,p1+p2 | nvidia,tegra234\n"
      "file /sys/empty =\n");
  ASSERT_EQ(m.entries().size(), 4u);
  EXPECT_EQ(m.entries()[0].content, "1 2 3\n");
  EXPECT_EQ(m.entries()[1].content, "x");
  EXPECT_EQ(m.entries()[2].content, std::string("nvidia,p1+p2\0nvidia,tegra234\0", 29));
  EXPECT_EQ(m.entries()[3].content, "\n");
  EXPECT_EQ(m.entries()[0].origin, "test.manifest:3");
}

TEST(FixtureManifestTest, AnEscapedBarStaysInsideADeviceTreeString) {
  const auto m = parse("dtstrings /a = x\\|y | z\n");
  ASSERT_EQ(m.entries().size(), 1u);
  EXPECT_EQ(m.entries()[0].content, std::string("x|y\0z\0", 6));
}

TEST(FixtureManifestTest, EscapesDecode) {
  const auto m = parse("raw /a = x\\ty\\n\\0\\x41\\\\\\|\n");
  ASSERT_EQ(m.entries().size(), 1u);
  EXPECT_EQ(m.entries()[0].content, std::string("x\ty\n\0A\\|", 8));
}

// A real attribute can exist and fail: the manifest says so, and reads through a Root fail with
// that errno (sysfs/injected_errors.h); modes are set once the whole tree stands.
TEST(FixtureManifestTest, FailingReadsWritesAndModesApplyToTheExpandedTree) {
  TempDir dir;
  FixtureManifest::parse(
      "mode /sys/a/secret = 0400\n"
      "file /sys/a/secret = 42\n"
      "file /sys/devices/gpu/load = 0\n"
      "link /sys/gpu -> devices/gpu\n"
      "fail-read /sys/gpu/load = ENODEV\n"
      "fail-write /sys/a/secret = EACCES\n"
      "fail-read /sys/never/written = EAGAIN\n"
      "fail-read /sys/removed = EIO\n"
      "remove /sys/removed\n",
      dir.path(), "test.manifest")
      .expand(dir.path());
  const jetchar::sysfs::Root root(dir.path());
  EXPECT_EQ(fs::status(dir.path() / "sys/a/secret").permissions() & fs::perms::all, fs::perms(0400));
  EXPECT_EQ(jetchar::sysfs::read_string(root, "/sys/a/secret"), "42");
  EXPECT_THROW(jetchar::sysfs::write_string(root, "/sys/a/secret", "1"), jetchar::sysfs::IoError);
  try {
    jetchar::sysfs::read_string(root, "/sys/devices/gpu/load");
    FAIL();
  } catch (const jetchar::sysfs::IoError& e) {
    EXPECT_EQ(e.error_number(), ENODEV);
  }
  EXPECT_TRUE(root.exists("/sys/never/written")) << "a failing attribute still exists";
  EXPECT_THROW(jetchar::sysfs::read_string(root, "/sys/never/written"), jetchar::sysfs::IoError);
  EXPECT_FALSE(root.exists("/sys/removed"));
  EXPECT_EQ(fixture_file_text(dir.path() / ".jetchar-injected-errors"),
            "read ENODEV /sys/devices/gpu/load\nread EAGAIN /sys/never/written\nwrite EACCES /sys/a/secret\n");
}

TEST(FixtureManifestTest, ModeAndErrnoValuesAreChecked) {
  EXPECT_THAT(format_error_of("mode /sys/a = 999\n"), HasSubstr("permission bits in octal"));
  EXPECT_THAT(format_error_of("fail-read /sys/a = EWHAT\n"), HasSubstr("ERRNO one of"));
  EXPECT_THAT(format_error_of("fail-write /sys/a\n"), HasSubstr("'fail-write PATH = VALUE'"));
}

TEST(FixtureManifestTest, RepeatOverCpuListAndTuplesNests) {
  const auto m = parse(
      "repeat C in 0-1,3\n"
      "file /sys/cpu{C}/online = 1\n"
      "end\n"
      "repeat P,CPUS in 0:0-3 4:4-5\n"
      "repeat K in a b\n"
      "file /sys/policy{P}/{K} = {CPUS}\n"
      "end\n"
      "end\n");
  ASSERT_EQ(m.entries().size(), 7u);
  EXPECT_EQ(m.entries()[2].path, "/sys/cpu3/online");
  EXPECT_EQ(m.entries()[4].path, "/sys/policy0/b");
  EXPECT_EQ(m.entries()[6].path, "/sys/policy4/b");
  EXPECT_EQ(m.entries()[6].content, "4-5\n");
}

TEST(FixtureManifestTest, HeredocKeepsLinesVerbatim) {
  const auto m = parse("file /proc/meminfo <<END\nMemTotal:  100 kB\n  indented = x\nEND\nfile /x = 1\n");
  ASSERT_EQ(m.entries().size(), 2u);
  EXPECT_EQ(m.entries()[0].content, "MemTotal:  100 kB\n  indented = x\n");
}

TEST(FixtureManifestTest, ErrorsNameTheLineAndWhatIsValid) {
  EXPECT_THAT(format_error_of("file /a = 1\nbogus /x\n"), HasSubstr("test.manifest:2"));
  EXPECT_THAT(format_error_of("bogus /x\n"), HasSubstr("'link PATH -> TARGET'"));
  EXPECT_THAT(format_error_of("file relative = 1\n"), HasSubstr("absolute kernel path"));
  EXPECT_THAT(format_error_of("file /a/../etc = 1\n"), HasSubstr("without '..'"));
  EXPECT_THAT(format_error_of("repeat X in 0-1\nfile /a{X} = 1\n"), HasSubstr("'end'"));
  EXPECT_THAT(format_error_of("end\n"), HasSubstr("only after"));
  EXPECT_THAT(format_error_of("repeat A,B in 1:2 3\nend\n"), HasSubstr("2 ':'-separated parts"));
  EXPECT_THAT(format_error_of("file /a <<END\nx\n"), HasSubstr("closing 'END'"));
  EXPECT_THAT(format_error_of("raw /a = \\q\n"), HasSubstr("escape"));
  EXPECT_THAT(format_error_of("raw /a = \\x4\n"), HasSubstr("hex"));
  EXPECT_THAT(format_error_of("link /a ->\n"), HasSubstr("link PATH -> TARGET"));
  EXPECT_THAT(format_error_of("repeat X in 3-1\nend\n"), HasSubstr("test.manifest:1"));
}

TEST(FixtureManifestTest, IncludeAndCopyResolveRelativeToTheManifest) {
  TempDir dir;
  dir.write("boards/common/base.manifest", "file /etc/base = from include\n");
  dir.write("boards/data/nvpmodel.conf", "< PM_CONFIG DEFAULT=2 >\n");
  const auto manifest = dir.write("boards/x/board.manifest",
                                  "include ../common/base.manifest\ncopy /etc/nvpmodel.conf <- ../data/nvpmodel.conf\n"
                                  "file /etc/base = overridden\n");
  const auto m = FixtureManifest::load(manifest);
  ASSERT_EQ(m.entries().size(), 3u);
  EXPECT_EQ(m.entries()[1].kind, FixtureEntry::Kind::kCopy);

  TempDir root;
  m.expand(root.path());
  EXPECT_EQ(fixture_file_text(root.path() / "etc/base"), "overridden\n");
  EXPECT_EQ(fixture_file_text(root.path() / "etc/nvpmodel.conf"), "< PM_CONFIG DEFAULT=2 >\n");
}

TEST(FixtureManifestTest, MissingIncludeOrCopySourceIsAnIoError) {
  TempDir dir;
  const auto a = dir.write("a.manifest", "include nope.manifest\n");
  EXPECT_THROW(FixtureManifest::load(a), jetchar::sysfs::IoError);
  const auto b = dir.write("b.manifest", "copy /etc/x <- nope.conf\n");
  EXPECT_THROW(FixtureManifest::load(b), jetchar::sysfs::IoError);
  EXPECT_THROW(FixtureManifest::load(dir.path() / "missing.manifest"), jetchar::sysfs::IoError);
}

TEST(FixtureManifestTest, IncludeAndCopyTakeOnlyRelativeRegularFiles) {
  EXPECT_THAT(format_error_of("include /etc/passwd\n"), HasSubstr("relative to the manifest"));
  EXPECT_THAT(format_error_of("copy /etc/x <- /etc/passwd\n"), HasSubstr("relative to the manifest"));
  TempDir dir;
  dir.write("empty.manifest", "");
  const auto a = dir.write("a.manifest", "include empty.manifest\n");
  EXPECT_THROW(FixtureManifest::load(a), jetchar::sysfs::IoError);
  // A device reached through '..' is refused, not read forever.
  const auto b = dir.write("b.manifest", "include " + fs::relative("/dev/zero", dir.path()).string() + "\n");
  EXPECT_THROW(FixtureManifest::load(b), jetchar::sysfs::IoError);
}

TEST(FixtureManifestTest, IncludeCycleStopsWithAnError) {
  TempDir dir;
  const auto a = dir.write("a.manifest", "include a.manifest\n");
  EXPECT_THROW(FixtureManifest::load(a), jetchar::sysfs::FormatError);
}

TEST(FixtureManifestTest, ExpandFollowsLinksInsideTheRootOnly) {
  TempDir root;
  // /proc/device-tree is an absolute link; writing through it must land inside the root.
  parse(
      "link /proc/device-tree -> /sys/firmware/devicetree/base\n"
      "dtstrings /proc/device-tree/model = Board\n"
      "link /sys/class/devfreq/gpu -> ../../devices/gpu/devfreq/gpu\n"
      "file /sys/class/devfreq/gpu/cur_freq = 5\n"
      "dir /sys/kernel/debug\n"
      "file /sys/gone = 1\n"
      "remove /sys/gone\n")
      .expand(root.path());
  EXPECT_TRUE(fs::is_symlink(root.path() / "proc/device-tree"));
  EXPECT_EQ(fixture_file_text(root.path() / "sys/firmware/devicetree/base/model"), std::string("Board\0", 6));
  EXPECT_EQ(fixture_file_text(root.path() / "sys/devices/gpu/devfreq/gpu/cur_freq"), "5\n");
  EXPECT_TRUE(fs::is_directory(root.path() / "sys/kernel/debug"));
  EXPECT_FALSE(fs::exists(root.path() / "sys/gone"));
  const jetchar::sysfs::Root sysroot(root.path());
  EXPECT_EQ(jetchar::sysfs::read_dt_strings(sysroot, "/proc/device-tree/model"), std::vector<std::string>{"Board"});
}

TEST(FixtureManifestTest, UnknownFixtureNameListsTheKnownOnes) {
  try {
    ExpandedFixture fixture("no-such-board");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no-such-board"));
    EXPECT_THAT(e.what(), HasSubstr("agx-orin-r36"));
  }
}

// Every fixture in the tree expands, and the expanded tree is removed with the object.
class BoardManifestsFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(BoardManifestsFixture, ExpandsWithTheFilesEveryBoardNeeds) {
  fs::path root_dir;
  {
    const ExpandedFixture fixture(GetParam());
    root_dir = fixture.root_dir();
    EXPECT_EQ(fixture.name(), GetParam());
    const jetchar::sysfs::Root root(root_dir);
    for (const char* path : {"/proc/stat", "/proc/meminfo", "/etc/nv_tegra_release", "/proc/device-tree/compatible",
                             "/sys/devices/system/cpu/online"}) {
      EXPECT_TRUE(root.exists(path)) << GetParam() << ": " << path;
    }
    EXPECT_EQ(root.canonical("/proc/device-tree"), "/sys/firmware/devicetree/base");
  }
  EXPECT_FALSE(fs::exists(root_dir));
}

INSTANTIATE_TEST_SUITE_P(AllBoards, BoardManifestsFixture, ::testing::ValuesIn(jetchar::jetson::list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(FixtureManifestTest, TheRequiredBoardsExist) {
  const auto names = jetchar::jetson::list_board_fixtures();
  for (const char* required : {"nano-r32", "xavier-nx-r32", "agx-xavier-r32", "agx-xavier-r35", "agx-orin-r35",
                               "agx-orin-r36", "orin-nano-r36"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  }
}
