// Any power mode can follow any other: on every fixture, a random sequence of stock nvpmodel
// modes and custom modes (few to all cores, lowest to highest clocks, DVFS on and off) is applied
// one after the other without restoring in between, and after each step the board is checked
// against that step's mode, not against the step before: the cores it names are online, pinned
// clocks read min = max = cur at the asked frequency, the nvpmodel status names the mode. At the
// end the journal brings the board back byte for byte. The sequences are seeded, so a failure
// names a sequence that reproduces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <variant>

#include "jetson/control/device_controller.h"
#include "jetson/control/nvpmodel_tool.h"
#include "jetson/simulated/board_fixture.h"
#include "jetson/simulated/simulated_board.h"
#include "sysfs/attribute.h"
#include "sysfs/change_journal.h"
#include "sysfs/cpu_list.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

constexpr int kSteps = 16;
constexpr std::uint32_t kSeed = 20261124;

// Every file and link under `dir` but the sensors the model recomputes (hwmon, iio, thermal).
std::map<std::string, std::string> control_tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string relative = it->path().lexically_relative(dir).string();
    if (relative.find("/hwmon") != std::string::npos || relative.find("iio:device") != std::string::npos ||
        relative.find("thermal_zone") != std::string::npos) {
      continue;
    }
    if (it->is_symlink()) {
      files[relative] = "-> " + fs::read_symlink(it->path()).string();
    } else if (it->is_regular_file()) {
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      files[relative] = s.str();
    }
  }
  return files;
}

using Mode = std::variant<int, CustomPowerMode>;  // an nvpmodel id, or a custom mode

std::string describe(const Mode& mode) {
  if (const int* id = std::get_if<int>(&mode)) return "nvpmodel mode " + std::to_string(*id);
  return std::get<CustomPowerMode>(mode).describe();
}

// The modes a sequence draws from: every stock mode, and custom modes over core counts, the
// first cluster's table (lowest, middle, highest), the GPU table and DVFS on/off.
std::vector<Mode> candidate_modes(const DeviceControls& controls) {
  std::vector<Mode> modes;
  if (controls.nvpmodel) {
    for (const auto& model : controls.nvpmodel->modes) modes.emplace_back(model.id);
  }
  const int cores = static_cast<int>(controls.cores.size());
  const auto& cpu = controls.clusters.front().available_khz;
  const std::vector<std::int64_t> empty;
  const auto& gpu = controls.gpu ? controls.gpu->available_hz : empty;
  for (const int n : {1, std::max(1, cores / 2), cores}) {
    for (const std::size_t i : {std::size_t{0}, cpu.size() / 2, cpu.size() - 1}) {
      for (const auto dvfs : {DvfsSetting::kOn, DvfsSetting::kOff}) {
        CustomPowerMode m;
        m.cpu_cores = n;
        m.cpu_freq_mhz = format_mhz(cpu[i], 1000);
        m.dvfs = dvfs;
        if (!gpu.empty()) m.gpu_freq_mhz = format_mhz(i == 0 ? gpu.front() : gpu.back(), 1000000);
        if (dvfs == DvfsSetting::kOff && controls.emc && !controls.emc->set_rate_path && !controls.emc->devfreq_path) {
          m.dvfs.reset();  // an EMC that cannot be pinned refuses DVFS off for the board at large
        }
        modes.emplace_back(m);
      }
    }
  }
  return modes;
}

std::vector<int> online(const sysfs::Root& root) {
  return sysfs::read_cpu_list(root, "/sys/devices/system/cpu/online");
}

// The board after `mode`, checked against the mode alone.
void expect_board_in(const sysfs::Root& root, const DeviceControls& controls, const Mode& mode) {
  if (const int* id = std::get_if<int>(&mode)) {
    const auto summary = summarize(controls.nvpmodel->mode(*id));
    EXPECT_EQ(online(root), summary.online_cores);
    if (controls.nvpmodel_status_path) {
      EXPECT_EQ(parse_nvpmodel_status(sysfs::read_string(root, *controls.nvpmodel_status_path), "status"), *id);
    }
    return;
  }
  const auto& m = std::get<CustomPowerMode>(mode);
  const auto cpus = online(root);
  EXPECT_EQ(cpus.size(), static_cast<std::size_t>(*m.cpu_cores));
  const std::int64_t khz = parse_mhz(*m.cpu_freq_mhz, 1000, "CPU");
  for (const auto& cluster : controls.clusters) {
    const bool active = std::any_of(cluster.cpus.begin(), cluster.cpus.end(),
                                    [&](int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); });
    if (!active) continue;
    const auto top = std::min(khz, cluster.available_khz.empty() ? khz : cluster.available_khz.back());
    EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_max_freq")), top) << cluster.name;
    if (m.dvfs == DvfsSetting::kOff) {
      EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_min_freq")), top) << cluster.name;
      EXPECT_EQ(sysfs::read_int(root, cluster.attribute("scaling_cur_freq")), top) << cluster.name;
    } else {
      EXPECT_LT(sysfs::read_int(root, cluster.attribute("scaling_min_freq")), top + 1) << cluster.name;
    }
  }
  if (m.gpu_freq_mhz) {
    const std::int64_t hz = parse_mhz(*m.gpu_freq_mhz, 1000000, "GPU");
    EXPECT_EQ(sysfs::read_int(root, controls.gpu->attribute("max_freq")), hz);
    if (m.dvfs == DvfsSetting::kOff) {
      EXPECT_EQ(sysfs::read_int(root, controls.gpu->attribute("min_freq")), hz);
      EXPECT_EQ(sysfs::read_int(root, controls.gpu->attribute("cur_freq")), hz);
    }
  }
}

class ModeTransitionsIntegration : public ::testing::TestWithParam<std::string> {};

TEST_P(ModeTransitionsIntegration, AnyModeFollowsAnyModeAndTheBoardSaysSo) {
  SimulatedBoard sim(GetParam());
  const auto& root = sim.root();
  testing::TempDir state;
  const auto before = control_tree(sim.root_dir());
  const DeviceControls controls = discover_device_controls(root);
  const auto candidates = candidate_modes(controls);
  std::mt19937 random(kSeed);
  std::uniform_int_distribution<std::size_t> pick(0, candidates.size() - 1);

  sysfs::ChangeJournal journal(root, state.path());
  DeviceController controller(root, controls, journal);
  ApplyOptions options;
  options.after_write = [&] { sim.update(); };
  options.settle_timeout = std::chrono::milliseconds(200);
  std::string sequence;
  for (int step = 0; step < kSteps; ++step) {
    const Mode& mode = candidates[pick(random)];
    sequence += (sequence.empty() ? "" : " -> ") + describe(mode);
    SCOPED_TRACE("seed " + std::to_string(kSeed) + ", step " + std::to_string(step) + ": " + sequence);
    const PowerModePlan plan = std::holds_alternative<int>(mode)
                                   ? plan_nvpmodel_mode(root, controls, std::get<int>(mode), /*allow_reboot=*/true)
                                   : plan_custom_mode(root, controls, std::get<CustomPowerMode>(mode), false, &journal);
    const auto result = controller.apply(plan, options);
    EXPECT_TRUE(result.settle.pinned_settled()) << plan.description;
    expect_board_in(root, controls, mode);
    if (::testing::Test::HasFailure()) break;
  }
  journal.restore();
  sim.update();
  EXPECT_EQ(control_tree(sim.root_dir()), before) << "after " << sequence;
}

INSTANTIATE_TEST_SUITE_P(Boards, ModeTransitionsIntegration, ::testing::ValuesIn(list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace jetchar::jetson
