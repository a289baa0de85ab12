#include "jetson/control/nvpmodel_tool.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

TEST(NvpmodelToolTest, StatusFileFormat) {
  EXPECT_EQ(parse_nvpmodel_status("pmode:0002\n", "status"), 2);
  EXPECT_EQ(parse_nvpmodel_status("pmode:0000", "status"), 0);
  EXPECT_EQ(format_nvpmodel_status(3), "pmode:0003\n");
  // The form nvpmodel writes: the mode, then the conf's fan mode (fanNull without a FAN_CONFIG).
  EXPECT_EQ(parse_nvpmodel_status("pmode:0002 fmode:fanNull\n", "status"), 2);
  EXPECT_EQ(parse_nvpmodel_status("pmode:0002 fmode:quiet", "status"), 2);
  EXPECT_EQ(nvpmodel_status_fan_mode("pmode:0002 fmode:quiet\n"), "quiet");
  EXPECT_EQ(nvpmodel_status_fan_mode("pmode:0002\n"), std::nullopt);
  EXPECT_EQ(format_nvpmodel_status(1, "fanNull"), "pmode:0001 fmode:fanNull\n");
  for (const char* bad : {"mode 2", "pmode:0002 quiet", "pmode:0002 fmode:", "pmode:0002 fmode:a b", "pmode:x"}) {
    try {
      parse_nvpmodel_status(bad, "/var/lib/nvpmodel/status");
      FAIL() << bad;
    } catch (const sysfs::FormatError& e) {
      EXPECT_EQ(std::string(e.what()), fmt::format("/var/lib/nvpmodel/status: unexpected content '{}', expected "
                                                   "'pmode:NNNN fmode:NAME' or 'pmode:NNNN' (the mode id nvpmodel "
                                                   "applied, then its fan mode)",
                                                   bad));
    }
  }
}

TEST(NvpmodelToolTest, QueryOutputWithWarnings) {
  const auto current = parse_nvpmodel_query("NVPM WARN: fan mode is not set!\nNV Power Mode: MODE_30W\n2\n");
  ASSERT_TRUE(current.has_value());
  EXPECT_EQ(current->name, "MODE_30W");
  EXPECT_EQ(current->id, 2);
  EXPECT_EQ(parse_nvpmodel_query("nothing useful\n"), std::nullopt);
}

TEST(NvpmodelToolTest, RunsProgramsWithAnArgumentVectorNotAShell) {
  // An argument with shell syntax reaches the program verbatim.
  const auto echo = run_process({"/bin/echo", "a;b", "$(x)"}, {}, std::chrono::seconds(5));
  EXPECT_EQ(echo.exit_code, 0);
  EXPECT_EQ(echo.output, "a;b $(x)\n");
  const auto cat = run_process({"/bin/cat"}, "YES\n", std::chrono::seconds(5));
  EXPECT_EQ(cat.output, "YES\n");
  const auto slow = run_process({"/bin/sleep", "5"}, {}, std::chrono::milliseconds(100));
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(run_process({"/nonexistent/program"}, {}, std::chrono::seconds(5)).exit_code, 127);
  EXPECT_THROW(run_process({"relative"}, {}, std::chrono::seconds(1)), std::invalid_argument);
}

// A stand-in for NVIDIA's program (absent here) that answers like the real one: -q prints the
// mode, -m records it in the status file after reading the reboot answer from stdin.
constexpr const char* kFakeNvpmodel = R"SH(#!/bin/sh
root="$(dirname "$(dirname "$(dirname "$0")")")"
case "$1" in
  -q) echo "NVPM WARN: fan mode is not set!"; echo "NV Power Mode: MODE_15W"; echo 1 ;;
  -m) case "$2" in -*) echo "NVPM ERROR: Invalid power mode $2"; exit 1 ;; esac
      read answer; echo "answer=$answer" > "$root/answer"; printf 'pmode:%04d\n' "$2" > "$root/var/lib/nvpmodel/status" ;;
  *) exit 2 ;;
esac
)SH";

TEST(NvpmodelToolTest, CurrentModeFromStatusFileThenProgram) {
  testing::TempDir dir;
  const sysfs::Root root(dir.path());
  EXPECT_EQ(current_nvpmodel_mode(root), std::nullopt);
  EXPECT_FALSE(nvpmodel_available(root));

  const auto program = dir.write("usr/sbin/nvpmodel", kFakeNvpmodel);
  fs::permissions(program, fs::perms::owner_all);
  ASSERT_TRUE(nvpmodel_available(root));
  auto current = current_nvpmodel_mode(root);
  ASSERT_TRUE(current.has_value());
  EXPECT_EQ(current->source, "nvpmodel -q");
  EXPECT_EQ(current->id, 1);

  dir.write("var/lib/nvpmodel/status", "pmode:0002\n");
  current = current_nvpmodel_mode(root);
  EXPECT_EQ(current->source, "/var/lib/nvpmodel/status");
  EXPECT_EQ(current->id, 2);

  nvpmodel_set_mode(root, 3, false);
  EXPECT_EQ(current_nvpmodel_mode(root)->id, 3);
  EXPECT_EQ(sysfs::read_string(root, "/answer"), "answer=NO");  // the reboot prompt is declined
  nvpmodel_set_mode(root, 1, true);
  EXPECT_EQ(sysfs::read_string(root, "/answer"), "answer=YES");
  try {
    nvpmodel_set_mode(root, -1, false);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "`/usr/sbin/nvpmodel -m -1` failed (exit 1): NVPM ERROR: Invalid power mode -1");
  }
}

}  // namespace
}  // namespace jetchar::jetson
