// End to end through the real executable on this machine with the simulated NVML (the same
// dlopen path as libnvidia-ml.so.1): `device info` and `monitor` show each GPU's power, energy
// counter and clocks; `device set` journals NVML's power limit and locked clocks, which `device
// restore` puts back after the setting process was SIGKILLed; without root nothing changes; without
// NVML, `device info` says NVML is absent and why. Skips when jetchar has not been built.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "jetson/control/nvpmodel_tool.h"
#include "sysfs/change_journal.h"
#include "tests/jetson/fake_nvml/fake_nvml_env.h"
#include "tests/support/jetchar_cli.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using ::testing::HasSubstr;

ProcessResult jetchar(const std::vector<std::string>& args) {
  return run_process(testing::jetchar_command(args), {}, 60s);
}

class NvmlCliIntegration : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(testing::jetchar_executable())) GTEST_SKIP() << testing::jetchar_executable() << " not built";
    env.set_state("gpu0.load_pct", "50");
  }
  testing::FakeNvmlEnv env;
  testing::TempDir dir;
};

TEST_F(NvmlCliIntegration, DeviceInfoShowsEachGpusPowerEnergyCounterAndClocks) {
  const auto text = jetchar({"device", "info", "--board", "host"});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("GPU 0 GPU-5f8e1c2a-0000-4000-8000-000000000000: jetchar simulated GPU"));
  EXPECT_THAT(text.output, HasSubstr("power (polled):        175.000 W"));
  EXPECT_THAT(text.output, HasSubstr("J since the driver loaded"));
  EXPECT_THAT(text.output, HasSubstr("power limit:           350.000 W; default 350.000 W; enforced 350.000 W; accepts "
                                     "100.000-350.000 W"));
  EXPECT_THAT(text.output, HasSubstr("clocks:                graphics 1695 MHz; SM 1695 MHz; memory 9751 MHz"));

  const auto json = jetchar({"device", "info", "--board", "host", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto info = nlohmann::json::parse(json.output);
  const auto& gpu = info.at("nvml").at("gpus").at(0);
  EXPECT_EQ(gpu.at("power_mw"), 175000);
  EXPECT_TRUE(gpu.at("energy_mj").is_number());
  EXPECT_EQ(gpu.at("sm_clock_mhz"), 1695);
  EXPECT_EQ(gpu.at("power_limit_range").at("min_mw"), 100000);
}

TEST_F(NvmlCliIntegration, WithoutNvmlDeviceInfoSaysItIsAbsentAndWhy) {
  env.set(kNvmlLibraryEnv, "/nonexistent/libnvidia-ml.so.1");
  const auto text = jetchar({"device", "info", "--board", "host"});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("NVML (/nonexistent/libnvidia-ml.so.1)\n  absent (NVML library "
                                     "/nonexistent/libnvidia-ml.so.1 cannot be loaded: "));
  const auto json = jetchar({"device", "info", "--board", "host", "--json"});
  const auto info = nlohmann::json::parse(json.output);
  EXPECT_THAT(info.at("nvml").at("absent").get<std::string>(), HasSubstr("cannot be loaded"));
  EXPECT_TRUE(info.at("nvml").at("gpus").empty());
}

TEST_F(NvmlCliIntegration, MonitorSamplesPolledPowerTheCounterAndClocks) {
  const fs::path csv = dir.path() / "gpu.csv";
  const auto run = jetchar({"monitor", "--board", "host", "--rate", "50", "--duration", "0.5", "--csv", csv.string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("nvml0_energy"));
  std::ifstream in(csv);
  std::string header, row, last;
  std::getline(in, header);
  for (const char* column : {"nvml0_energy.power_mw", "nvml0_power.power_mw", "nvml0.graphics_clock_mhz",
                             "nvml0.sm_clock_mhz", "nvml0.util_pct", "nvml0.temp_mc"}) {
    EXPECT_THAT(header, HasSubstr(column));
  }
  while (std::getline(in, row)) last = row;
  EXPECT_THAT(last, HasSubstr("175000"));  // the polled power of the last sample
}

// The fake GPU's state file is the driver's state: what `device restore` must bring back.
TEST_F(NvmlCliIntegration, ASigkilledPowerLimitAndClockLockAreRestoredExactlyByTheNextInvocation) {
  const std::string state_dir = (dir.path() / "state").string();
  const pid_t child =
      testing::spawn_jetchar({"device", "set", "--board", "host", "--state-dir", state_dir, "--gpu-power-limit-w",
                              "200", "--gpu-locked-clocks", "1200,1500", "--hold", "0"});
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (env.state().find("gpu0.gpu_locked 1200 1500") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 200000"));
  ::kill(child, SIGKILL);
  EXPECT_EQ(testing::wait_exit_status(child), 128 + SIGKILL);
  EXPECT_THAT(env.state(), HasSubstr("gpu0.gpu_locked 1200 1500"));  // nobody restored it

  const auto restored = jetchar({"device", "restore", "--board", "host", "--state-dir", state_dir});
  ASSERT_EQ(restored.exit_code, 0) << restored.output;
  EXPECT_THAT(restored.output, HasSubstr("restored 2 attributes"));
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 350000"));
  EXPECT_THAT(env.state(), HasSubstr("gpu0.gpu_locked 0 0"));
  EXPECT_FALSE(fs::exists(fs::path(state_dir) / "change-journal"));
}

// The journal's "@boot" records (sysfs/change_journal.h) moved to another boot id: the journal as a
// reboot leaves it. A record's checksum is FNV-1a 32 of the text before its last tab.
void move_journal_to_an_earlier_boot(const fs::path& journal) {
  const auto fnv1a = [](const std::string& text) {
    std::uint32_t hash = 2166136261u;
    for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
    return hash;
  };
  std::ifstream in(journal);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.starts_with("@boot\t")) {
      const std::string body = "@boot\t00000000-1111-4222-8333-444444444444";
      line = fmt::format("{}\t{:08x}", body, fnv1a(body));
    }
    out += line + "\n";
  }
  in.close();
  std::ofstream(journal, std::ios::trunc) << out;
}

// The driver resets NVML's knobs at every boot (nvml.h), so what a sweep killed before a reboot
// journalled is left alone (as jetchar-restore.service at boot does): a limit set since stays.
TEST_F(NvmlCliIntegration, AfterARebootTheJournalledNvmlKnobsAreLeftAloneAndNamed) {
  const std::string state_dir = (dir.path() / "state").string();
  const pid_t child = testing::spawn_jetchar(
      {"device", "set", "--board", "host", "--state-dir", state_dir, "--gpu-power-limit-w", "200", "--hold", "0"});
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (env.state().find("gpu0.power_limit_mw 200000") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  ::kill(child, SIGKILL);
  EXPECT_EQ(testing::wait_exit_status(child), 128 + SIGKILL);
  const fs::path journal = fs::path(state_dir) / "change-journal";
  ASSERT_TRUE(fs::exists(journal));
  move_journal_to_an_earlier_boot(journal);
  // The snapshot the session took beside its journal was read in that boot too.
  const fs::path snapshot = fs::path(state_dir) / "change-journal.snapshot";
  ASSERT_TRUE(fs::exists(snapshot));
  move_journal_to_an_earlier_boot(snapshot);
  env.set_state("gpu0.power_limit_mw", "300000");  // set by someone after the reboot

  const auto restored = jetchar({"device", "restore", "--board", "host", "--state-dir", state_dir});
  ASSERT_EQ(restored.exit_code, 0) << restored.output;
  EXPECT_THAT(restored.output, HasSubstr("restored 0 attributes"));
  EXPECT_THAT(restored.output, HasSubstr("left nvml:GPU-5f8e1c2a-0000-4000-8000-000000000000/power_limit_mw alone: it "
                                         "was journalled before the last reboot"));
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 300000"));
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_FALSE(fs::exists(snapshot));
}

// `device snapshot` records each GPU's power limit beside the sysfs controls, and `device restore
// FILE` puts it back (locked clocks are not in it: NVML cannot report them).
TEST_F(NvmlCliIntegration, ASnapshotRecordsEachGpusPowerLimitAndRestoringTheFilePutsItBack) {
  const std::string state_dir = (dir.path() / "state").string();
  const std::string file = (dir.path() / "snapshot").string();
  const auto taken = jetchar({"device", "snapshot", "--board", "host", "--state-dir", state_dir, "-o", file});
  ASSERT_EQ(taken.exit_code, 0) << taken.output;
  const auto contents = sysfs::read_journal(file);
  std::vector<std::string> nvml_entries;
  for (const auto& entry : contents.entries) {
    if (entry.path.rfind("nvml:", 0) == 0) nvml_entries.push_back(entry.path + "=" + entry.original);
  }
  ASSERT_EQ(nvml_entries.size(), 1u) << taken.output;
  EXPECT_THAT(nvml_entries[0], ::testing::MatchesRegex("nvml:GPU-[0-9a-f-]+/power_limit_mw=350000\\n?"));

  // Only the NVML entry is restored here: this machine's own sysfs controls are not the test's to write.
  sysfs::write_journal_file(
      file, contents.root_prefix,
      {*std::find_if(contents.entries.begin(), contents.entries.end(),
                     [](const sysfs::JournalEntry& e) { return e.path.rfind("nvml:", 0) == 0; })});
  env.set_state("gpu0.power_limit_mw", "200000");
  const auto restored = jetchar({"device", "restore", file, "--board", "host", "--state-dir", state_dir});
  ASSERT_EQ(restored.exit_code, 0) << restored.output;
  EXPECT_THAT(restored.output, HasSubstr("restored 1 attributes from snapshot"));
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 350000"));
}

TEST_F(NvmlCliIntegration, WithoutRootTheErrorSaysSoAndNothingChanges) {
  env.set("JETCHAR_FAKE_NVML_NON_ROOT", "1");
  const std::string state_dir = (dir.path() / "state").string();
  const auto run =
      jetchar({"device", "set", "--board", "host", "--state-dir", state_dir, "--gpu-power-limit-w", "200"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.output,
              HasSubstr("Insufficient Permissions (NVML_ERROR_NO_PERMISSION, 4); NVML's control calls need root"));
  EXPECT_THAT(run.output, HasSubstr("nothing was changed"));
  EXPECT_THAT(env.state(), ::testing::Not(HasSubstr("200000")));
  EXPECT_FALSE(fs::exists(fs::path(state_dir) / "change-journal"));
}

TEST_F(NvmlCliIntegration, APowerLimitOutsideTheGpusRangeIsRefusedNamingTheRange) {
  const auto run = jetchar({"device", "set", "--board", "host", "--state-dir", (dir.path() / "state").string(),
                            "--gpu-power-limit-w", "500"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.output, HasSubstr("power limit 500 W is outside what it accepts; valid: 100 to 350 W"));
}

// A power-limit sweep on the simulated GPU: each run's limit is journalled and set, the sweep ends
// with the limit back; killed mid-sweep, `device restore` (as jetchar-restore.service after a
// crash) puts the original limit back.
TEST_F(NvmlCliIntegration, APowerLimitSweepRunsJournalledAndIsRestoredAfterASigkill) {
  const fs::path spec = dir.write("sweep.textproto", R"(
name: "power-limit"
base {
  workload { model: "lenet5" dataset: "synthetic:1x28x28?samples=512&classes=10" batch_size: 32 epochs: 1 max_minibatches: 4 device: "cpu" }
  measurement { sample_rate_hz: 50 }
}
axes { field: "device.gpu_power_limit_w" values: ["150", "250", "300"] }
)");
  const std::string state_dir = (dir.path() / "state").string();
  const auto done = jetchar({"sweep", "run", spec.string(), "--results", (dir.path() / "results").string(), "--board",
                             "host", "--state-dir", state_dir});
  ASSERT_EQ(done.exit_code, 0) << done.output;
  for (const char* limit : {"power limit 150 W", "power limit 250 W", "power limit 300 W"}) {
    EXPECT_THAT(done.output, HasSubstr(limit));
  }
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 350000"));
  EXPECT_FALSE(fs::exists(fs::path(state_dir) / "change-journal"));

  const pid_t child =
      testing::spawn_jetchar({"sweep", "run", spec.string(), "--results", (dir.path() / "results-killed").string(),
                              "--board", "host", "--state-dir", state_dir});
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (env.state().find("gpu0.power_limit_mw 150000") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ::kill(child, SIGKILL);
  EXPECT_EQ(testing::wait_exit_status(child), 128 + SIGKILL);
  ASSERT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 150000"));  // killed with the limit set
  ASSERT_TRUE(fs::exists(fs::path(state_dir) / "change-journal"));
  const auto restored = jetchar({"device", "restore", "--board", "host", "--state-dir", state_dir});
  ASSERT_EQ(restored.exit_code, 0) << restored.output;
  EXPECT_THAT(env.state(), HasSubstr("gpu0.power_limit_mw 350000"));
  EXPECT_FALSE(fs::exists(fs::path(state_dir) / "change-journal"));
}

}  // namespace
}  // namespace jetchar::jetson
