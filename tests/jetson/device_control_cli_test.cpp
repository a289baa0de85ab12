// End to end through the real executable: `jetchar device set` is SIGKILLed at increasing delays
// against a simulated board kept in a directory, then `jetchar device restore` must bring every
// control back exactly. Skips when the jetchar executable has not been built.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "jetson/control/nvpmodel_tool.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> controls_tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string relative = it->path().lexically_relative(dir).string();
    // Sensors are modelled from the host's utilization; the state directory is ours.
    if (relative.find("hwmon") != std::string::npos || relative.find("thermal_zone") != std::string::npos ||
        relative.rfind("var/lib/jetchar", 0) == 0) {
      continue;
    }
    if (!it->is_symlink() && it->is_regular_file()) {
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      files[relative] = s.str();
    }
  }
  return files;
}

TEST(DeviceControlCliIntegration, SigkilledSetIsRestoredExactlyByTheNextInvocation) {
  const fs::path cli = testing::jetchar_executable();
  if (!fs::exists(cli)) GTEST_SKIP() << cli << " not built";
  testing::TempDir dir;
  const std::string root = (dir.path() / "board").string();
  const std::string state = (dir.path() / "state").string();
  const auto created =
      run_process(testing::jetchar_command({"device", "modes", "--board", "sim:agx-orin-r36", "--root", root}), {},
                  std::chrono::seconds(60));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  const auto before = controls_tree(root);
  int killed = 0;
  for (int delay_ms = 0; delay_ms <= 300; delay_ms += 20) {
    SCOPED_TRACE(delay_ms);
    const pid_t child = testing::spawn_jetchar({"device", "set", "--root", root, "--state-dir", state, "--cpu-cores",
                                                "2", "--cpu-freq", "729.6", "--gpu-freq", "306", "--emc-freq", "204",
                                                "--dvfs", "off", "--disable-cpu-idle", "--fan", "max"});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    if (testing::wait_exit_status(child) == 128 + SIGKILL) ++killed;
    const auto restored =
        run_process(testing::jetchar_command({"device", "restore", "--root", root, "--state-dir", state}), {},
                    std::chrono::seconds(60));
    ASSERT_EQ(restored.exit_code, 0) << restored.output;
    const auto after = controls_tree(root);
    for (const auto& [path, content] : before) {
      EXPECT_EQ(after.count(path) ? after.at(path) : "<missing>", content) << path;
    }
  }
  EXPECT_GT(killed, 3) << "the kills should land while the command runs";
}

}  // namespace
}  // namespace jetchar::jetson
