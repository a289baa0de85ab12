#include "jetson/control/device_controller.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "jetson/control/nvpmodel_tool.h"
#include "jetson/simulated/board_fixture.h"
#include "jetson/simulated/simulated_board.h"
#include "sysfs/attribute.h"
#include "sysfs/cpu_list.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Sensors the simulated board recomputes from the host's utilization: not part of "the board
// as it was" (they move on a real board too).
bool is_sensor(const std::string& relative) {
  return relative.find("/hwmon") != std::string::npos || relative.find("iio:device") != std::string::npos ||
         relative.find("thermal_zone") != std::string::npos;
}

// Every regular file (and symlink target) under `dir` with its exact content.
std::map<std::string, std::string> tree(const fs::path& dir, bool skip_sensors) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string relative = it->path().lexically_relative(dir).string();
    if (skip_sensors && is_sensor(relative)) continue;
    if (it->is_symlink()) {
      files[relative] = "-> " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      files[relative] = slurp(it->path());
    }
  }
  return files;
}

void expect_same_tree(const std::map<std::string, std::string>& before,
                      const std::map<std::string, std::string>& after) {
  EXPECT_EQ(before.size(), after.size());
  for (const auto& [path, content] : before) {
    const auto it = after.find(path);
    if (it == after.end()) {
      ADD_FAILURE() << path << " disappeared";
    } else if (it->second != content) {
      ADD_FAILURE() << path << ": '" << content << "' became '" << it->second << "'";
    }
  }
}

// The custom modes of the study, expressed against what each board offers: few and many cores,
// the lowest/middle/highest CPU and GPU frequency, DVFS on and off, the EMC table where readable.
std::vector<CustomPowerMode> study_modes(const DeviceControls& controls) {
  std::vector<CustomPowerMode> modes;
  const int cores = static_cast<int>(controls.cores.size());
  auto mhz = [](std::int64_t value, std::int64_t units) { return format_mhz(value, units); };
  const auto& cpu_table = controls.clusters.front().available_khz;
  for (size_t i : {size_t{0}, cpu_table.size() / 2, cpu_table.size() - 1}) {
    CustomPowerMode m;
    m.cpu_cores = i == 0 ? 1 : (i == cpu_table.size() - 1 ? cores : std::max(1, cores / 2));
    m.cpu_freq_mhz = mhz(cpu_table[i], 1000);
    m.dvfs = i == cpu_table.size() / 2 ? DvfsSetting::kOn : DvfsSetting::kOff;
    if (controls.gpu && !controls.gpu->available_hz.empty()) {
      const auto& t = controls.gpu->available_hz;
      m.gpu_freq_mhz = mhz(t[i == 0 ? 0 : (i == cpu_table.size() - 1 ? t.size() - 1 : t.size() / 2)], 1000000);
    }
    if (controls.emc && (controls.emc->set_rate_path || controls.emc->devfreq_path) &&
        !controls.emc->available_hz.empty()) {
      const auto& t = controls.emc->available_hz;
      m.emc_freq_mhz = mhz(t[i == 0 ? 0 : t.size() - 1], 1000000);
    }
    modes.push_back(m);
  }
  CustomPowerMode clocks;  // what jetson_clocks does: everything pinned at max, idle off, fan max
  clocks.dvfs = DvfsSetting::kOff;
  clocks.disable_cpu_idle = !controls.cores.front().idle_disable_paths.empty();
  if (controls.gpu && controls.gpu->railgate_path) clocks.gpu_railgate = false;
  if (!controls.fans.empty()) clocks.fan = FanSetting::kMax;
  if (controls.emc && !controls.emc->set_rate_path && !controls.emc->devfreq_path) {
    // No pinnable EMC on this board (e.g. no debugfs): DVFS off would be refused for EMC.
    clocks.dvfs.reset();
    clocks.cpu_freq_mhz = mhz(cpu_table.back(), 1000);
  }
  modes.push_back(clocks);
  return modes;
}

class DeviceControlFixture : public ::testing::TestWithParam<std::string> {};
// The done-criteria sweeps (every mode of every board, a kill at every write boundary): seconds
// per board because every write is fsync'd and forked children are killed, hence `integration`.
class DeviceControlIntegration : public ::testing::TestWithParam<std::string> {};

// Every stock nvpmodel mode and every study mode applies on the simulated board, reads back as
// asked, and restores to the exact tree it started from.
TEST_P(DeviceControlIntegration, EveryStockAndStudyModeAppliesAndRestoresExactly) {
  SimulatedBoard sim(GetParam());
  const auto& root = sim.root();
  testing::TempDir state;
  const auto before = tree(sim.root_dir(), true);
  int applied = 0;
  const DeviceControls controls = discover_device_controls(root);

  auto apply_and_restore = [&](const PowerModePlan& plan, const std::function<void()>& check) {
    SCOPED_TRACE(plan.description);
    sysfs::ChangeJournal journal(root, state.path());
    DeviceController controller(root, controls, journal);
    ApplyOptions options;
    options.after_write = [&] { sim.update(); };
    options.settle_timeout = std::chrono::milliseconds(200);
    const auto result = controller.apply(plan, options);
    EXPECT_EQ(result.writes, plan.writes.size());
    EXPECT_TRUE(result.settle.pinned_settled());
    check();
    journal.restore();
    sim.update();
    expect_same_tree(before, tree(sim.root_dir(), true));
    ++applied;
  };

  if (controls.nvpmodel) {
    const std::string status_before =
        controls.nvpmodel_status_path ? sysfs::read_string(root, *controls.nvpmodel_status_path) : "";
    for (const auto& model : controls.nvpmodel->modes) {
      const auto plan = plan_nvpmodel_mode(root, controls, model.id, /*allow_reboot=*/true);
      const auto summary = summarize(model);
      apply_and_restore(plan, [&] {
        auto online = sysfs::read_cpu_list(root, "/sys/devices/system/cpu/online");
        EXPECT_EQ(online, summary.online_cores) << model.name;
        if (controls.nvpmodel_status_path) {
          const std::string status = sysfs::read_string(root, *controls.nvpmodel_status_path);
          EXPECT_EQ(parse_nvpmodel_status(status, "status"), model.id) << status;
          EXPECT_EQ(nvpmodel_status_fan_mode(status), nvpmodel_status_fan_mode(status_before)) << status;
        }
      });
    }
  }
  for (const auto& mode : study_modes(controls)) {
    const auto plan = plan_custom_mode(root, controls, mode, false);
    apply_and_restore(plan, [&] {
      if (mode.cpu_cores) {
        EXPECT_EQ(sysfs::read_cpu_list(root, "/sys/devices/system/cpu/online").size(),
                  static_cast<size_t>(*mode.cpu_cores));
      }
      if (mode.cpu_freq_mhz && mode.dvfs == DvfsSetting::kOff) {
        const auto& cluster = controls.clusters.front();
        const auto khz = parse_mhz(*mode.cpu_freq_mhz, 1000, "CPU");
        EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_min_freq")), khz);
        EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_cur_freq")), khz);
      }
      if (mode.gpu_freq_mhz && controls.gpu) {
        EXPECT_EQ(sysfs::read_int(root, controls.gpu->attribute("max_freq")),
                  parse_mhz(*mode.gpu_freq_mhz, 1000000, "GPU"));
      }
    });
  }
  EXPECT_GE(applied, 4);
}

std::size_t g_kill_after = 0;
void kill_hook(std::size_t writes) {
  if (writes == g_kill_after) ::kill(::getpid(), SIGKILL);
}

// A real child process applying a mode is SIGKILLed after every write in turn; a new journal
// then restores the fixture tree byte for byte (no behaviour model: nothing else may change).
TEST_P(DeviceControlIntegration, KilledAtEveryWriteBoundaryRestoresByteIdentical) {
  ExpandedFixture board(GetParam());
  const sysfs::Root root(board.root_dir());
  testing::TempDir state;
  const auto before = tree(board.root_dir(), false);
  const DeviceControls controls = discover_device_controls(root);
  auto modes = study_modes(controls);
  const CustomPowerMode& mode = modes.front();  // fewest cores, lowest clocks, DVFS off
  const auto plan = plan_custom_mode(root, controls, mode, false);
  ASSERT_GE(plan.writes.size(), 3u) << plan.description;
  for (std::size_t kill_after = 1; kill_after <= plan.writes.size(); ++kill_after) {
    SCOPED_TRACE(kill_after);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      g_kill_after = kill_after;
      sysfs::ChangeJournal journal(root, state.path());
      journal.set_after_write_hook(kill_hook);
      DeviceController controller(root, controls, journal);
      ApplyOptions options;
      options.settle_timeout = std::chrono::milliseconds(0);
      try {
        controller.apply(plan, options);
      } catch (...) {
        ::_exit(2);
      }
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
    ASSERT_TRUE(sysfs::find_pending_journal(state.path()).has_value());
    EXPECT_NE(tree(board.root_dir(), false), before);
    sysfs::ChangeJournal journal(root, state.path());
    EXPECT_TRUE(journal.continued_pending());
    journal.restore();
    expect_same_tree(before, tree(board.root_dir(), false));
  }
}

// SIGTERM between writes: the handler only flags it, the main path rolls back and reports.
TEST_P(DeviceControlFixture, SigtermBetweenWritesRollsBack) {
  ExpandedFixture board(GetParam());
  const sysfs::Root root(board.root_dir());
  testing::TempDir state;
  const auto before = tree(board.root_dir(), false);
  const DeviceControls controls = discover_device_controls(root);
  const auto plan = plan_custom_mode(root, controls, study_modes(controls).front(), false);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ControlInterrupt interrupt;
    sysfs::ChangeJournal journal(root, state.path());
    DeviceController controller(root, controls, journal);
    ApplyOptions options;
    options.interrupt = &interrupt;
    int writes = 0;
    options.after_write = [&] {
      if (++writes == 2) ::kill(::getpid(), SIGTERM);
    };
    try {
      controller.apply(plan, options);
    } catch (const Interrupted& e) {
      ::_exit(e.signal() == SIGTERM ? 130 : 3);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  expect_same_tree(before, tree(board.root_dir(), false));
  EXPECT_FALSE(fs::exists(sysfs::journal_file(state.path())));
}

// A control that cannot be written is found before the first write: one error, board untouched.
TEST_P(DeviceControlFixture, UnwritableControlFailsBeforeAnyWrite) {
  ExpandedFixture board(GetParam());
  const sysfs::Root root(board.root_dir());
  testing::TempDir state;
  const DeviceControls controls = discover_device_controls(root);
  const auto plan = plan_custom_mode(root, controls, study_modes(controls).front(), false);
  const auto last = root.resolve(root.canonical(plan.writes.back().path));
  fs::permissions(last, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto before = tree(board.root_dir(), false);
  sysfs::ChangeJournal journal(root, state.path());
  DeviceController controller(root, controls, journal);
  try {
    controller.apply(plan, ApplyOptions{});
    FAIL();
  } catch (const sysfs::IoError& e) {
    EXPECT_EQ(e.error_number(), EACCES);
    EXPECT_NE(std::string(e.what()).find(plan.writes.back().path), std::string::npos);
  }
  expect_same_tree(before, tree(board.root_dir(), false));
  EXPECT_TRUE(journal.empty());
}

// A write the board refuses half-way (read-back mismatch) rolls back what was already written.
TEST_P(DeviceControlFixture, MidSequenceFailureRollsBack) {
  SimulatedBoard sim(GetParam());
  const auto& root = sim.root();
  testing::TempDir state;
  const DeviceControls controls = discover_device_controls(root);
  auto plan = plan_custom_mode(root, controls, study_modes(controls).front(), false);
  const auto before = tree(sim.root_dir(), true);
  // Replace the last write's target by a directory: open() fails after earlier writes happened.
  const auto victim = root.resolve(root.canonical(plan.writes.back().path));
  const std::string saved = slurp(victim);
  sysfs::ChangeJournal journal(root, state.path());
  DeviceController controller(root, controls, journal);
  ApplyOptions options;
  int writes = 0;
  options.after_write = [&] {
    sim.update();
    if (++writes == static_cast<int>(plan.writes.size()) - 1) {
      fs::remove(victim);
      fs::create_directory(victim);
    }
  };
  EXPECT_THROW(controller.apply(plan, options), sysfs::IoError);
  fs::remove(victim);
  std::ofstream(victim, std::ios::binary) << saved;
  sim.update();
  expect_same_tree(before, tree(sim.root_dir(), true));
  EXPECT_FALSE(fs::exists(journal.file()));
}

std::vector<std::string> fixtures() {
  auto names = list_board_fixtures();
  if (names.empty()) names.push_back("none");
  return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (auto& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Boards, DeviceControlFixture, ::testing::ValuesIn(fixtures()), test_name);
INSTANTIATE_TEST_SUITE_P(Boards, DeviceControlIntegration, ::testing::ValuesIn(fixtures()), test_name);

// The Orin Nano Super devkit (36.4.3): MAXN_SUPER, chosen by name as `device set --mode MAXN_SUPER`
// does, lifts the GPU to the Super table's 1020 MHz and the CPUs to 1728 MHz, records mode 2 with
// the fan mode kept, and restores the captured tree byte for byte.
TEST(DeviceControllerTest, OrinNanoSuperAppliesMaxnSuperByNameAndRestoresExactly) {
  SimulatedBoard sim("orin-nano-r36");
  const auto& root = sim.root();
  testing::TempDir state;
  // Start from the stock default (25W, id 1) so that MAXN_SUPER raises every cap.
  const DeviceControls controls = discover_device_controls(root);
  ASSERT_TRUE(controls.nvpmodel.has_value());
  const PowerModel& maxn_super = controls.nvpmodel->mode(std::string_view("MAXN_SUPER"));
  EXPECT_EQ(maxn_super.id, 2);
  EXPECT_EQ(controls.nvpmodel->default_mode, 1);
  ApplyOptions options;
  options.after_write = [&] { sim.update(); };
  options.settle_timeout = std::chrono::milliseconds(200);
  {
    sysfs::ChangeJournal setup(root, state.path() / "setup");
    DeviceController(root, controls, setup).apply(plan_nvpmodel_mode(root, controls, 1, true), options);
  }
  sim.update();
  ASSERT_EQ(sysfs::read_int(root, controls.gpu->attribute("max_freq")), 918000000);
  const auto before = tree(sim.root_dir(), true);
  sysfs::ChangeJournal journal(root, state.path() / "run");
  DeviceController controller(root, controls, journal);
  const auto plan = plan_nvpmodel_mode(root, controls, maxn_super.id, false);
  controller.apply(plan, options);
  EXPECT_EQ(sysfs::read_int(root, controls.gpu->attribute("max_freq")), 1020000000);
  for (const auto& cluster : controls.clusters) {
    EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_max_freq")), 1728000) << cluster.name;
  }
  EXPECT_EQ(sysfs::read_string(root, "/var/lib/nvpmodel/status"), "pmode:0002 fmode:fanNull");
  journal.restore();
  sim.update();
  expect_same_tree(before, tree(sim.root_dir(), true));
}

TEST(DeviceControllerTest, RefusesPathsThatAreNotDiscoveredControls) {
  testing::TempDir dir;
  dir.write("sys/devices/system/cpu/online", "0\n");
  dir.write("sys/kernel/secret", "0\n");
  const sysfs::Root root(dir.path());
  testing::TempDir state;
  const DeviceControls controls = discover_device_controls(root);
  sysfs::ChangeJournal journal(root, state.path());
  DeviceController controller(root, controls, journal);
  PowerModePlan plan;
  plan.writes.push_back({"/sys/kernel/secret", "1\n", "not a control"});
  EXPECT_THROW(controller.apply(plan, ApplyOptions{}), std::invalid_argument);
  EXPECT_EQ(sysfs::read_string(root, "/sys/kernel/secret"), "0");
}

}  // namespace
}  // namespace jetchar::jetson
