#include "jetson/simulated/simulated_board.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include "jetson/discovery/gpu_device.h"
#include "jetson/discovery/power_monitors.h"
#include "jetson/simulated/board_fixture.h"
#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_stat.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCpu = "/sys/devices/system/cpu";

class SimulatedBoardFixture : public ::testing::TestWithParam<std::string> {
 protected:
  SimulatedBoard sim{GetParam()};
  const sysfs::Root& root = sim.root();

  void write(const std::string& path, const std::string& value) {
    sysfs::write_string(root, path, value + "\n");
    sim.update();
  }
  std::int64_t read(const std::string& path) { return sysfs::read_int(root, path); }

  std::optional<std::string> first_online_secondary_cpu() {
    for (int cpu = 1; cpu < 64; ++cpu) {
      const std::string path = std::string(kCpu) + "/cpu" + std::to_string(cpu) + "/online";
      if (sysfs::try_read_string(root, path) == "1") return path;
    }
    return std::nullopt;
  }
};

TEST_P(SimulatedBoardFixture, SaysItIsSimulated) {
  EXPECT_TRUE(SimulatedBoard::is_simulated_root(sim.root_dir()));
  EXPECT_NE(sysfs::read_string(root, std::string("/") + SimulatedBoard::kMarker).find("simulated"), std::string::npos);
}

TEST_P(SimulatedBoardFixture, HotplugUpdatesOnlineListAndPolicies) {
  const auto core = first_online_secondary_cpu();
  ASSERT_TRUE(core.has_value());
  const int cpu = std::atoi(core->c_str() + std::string(kCpu).size() + 4);
  write(*core, "0");
  const auto online = sysfs::read_cpu_list(root, std::string(kCpu) + "/online");
  EXPECT_EQ(std::count(online.begin(), online.end(), cpu), 0);
  EXPECT_EQ(online.front(), 0);
  for (const auto& policy : root.glob(std::string(kCpu) + "/cpufreq/policy*")) {
    if (!root.exists(policy + "/affected_cpus")) continue;
    std::vector<int> affected;
    try {
      affected = sysfs::read_cpu_list(root, policy + "/affected_cpus");
    } catch (const sysfs::IoError& e) {
      // A policy without an online core answers EBUSY on Linux >= 5.19 (cpufreq.c show()).
      EXPECT_EQ(e.error_number(), EBUSY) << e.what();
      continue;
    }
    EXPECT_EQ(std::count(affected.begin(), affected.end(), cpu), 0) << policy;
  }
  write(*core, "1");
  const auto back = sysfs::read_cpu_list(root, std::string(kCpu) + "/online");
  EXPECT_EQ(std::count(back.begin(), back.end(), cpu), 1);
}

TEST_P(SimulatedBoardFixture, LimitsClampTheCurrentClocks) {
  const std::string policy = root.glob(std::string(kCpu) + "/cpufreq/policy*").front();
  const auto table = sysfs::read_int_list(root, policy + "/scaling_available_frequencies");
  const auto captured = read(policy + "/scaling_cur_freq");
  write(policy + "/scaling_min_freq", std::to_string(table.front()));
  write(policy + "/scaling_max_freq", std::to_string(table.front()));
  EXPECT_EQ(read(policy + "/scaling_cur_freq"), table.front());
  write(policy + "/scaling_max_freq", std::to_string(table.back()));
  write(policy + "/scaling_min_freq", std::to_string(table.back()));
  EXPECT_EQ(read(policy + "/scaling_cur_freq"), table.back());
  write(policy + "/scaling_min_freq", std::to_string(table.front()));
  write(policy + "/scaling_governor", "performance");
  EXPECT_EQ(read(policy + "/scaling_cur_freq"), table.back());

  const auto gpu = discover_gpu(root).gpu;
  ASSERT_TRUE(gpu.has_value());
  // The GPU term of the model: the rail sum also follows the host's CPU load, which a busy test
  // machine changes between two updates.
  const double before_mw = sim.power().gpu_mw;
  const std::string d = gpu->devfreq_path;
  const auto gpu_top = gpu->available_freqs_hz.empty() ? read(d + "/max_freq") : gpu->available_freqs_hz.back();
  write(d + "/max_freq", std::to_string(gpu_top));
  write(d + "/min_freq", std::to_string(gpu_top));
  EXPECT_EQ(read(d + "/cur_freq"), gpu_top);
  EXPECT_GT(sim.power().gpu_mw, before_mw) << "power follows the GPU clock";
  (void)captured;
}

// A derived attribute is replaced whole on update; it keeps the mode the kernel gives it (cpufreq's
// cpuinfo_cur_freq is 0400).
TEST_P(SimulatedBoardFixture, AnUpdatedAttributeKeepsItsMode) {
  const std::string policy = root.glob(std::string(kCpu) + "/cpufreq/policy*").front();
  const auto table = sysfs::read_int_list(root, policy + "/scaling_available_frequencies");
  write(policy + "/scaling_max_freq", std::to_string(table.back()));
  write(policy + "/scaling_min_freq", std::to_string(table.back()));
  const auto file = root.resolve(policy + "/scaling_cur_freq");
  std::filesystem::permissions(file, std::filesystem::perms::owner_read);
  write(policy + "/scaling_min_freq", std::to_string(table.front()));
  write(policy + "/scaling_max_freq", std::to_string(table.front()));
  EXPECT_EQ(read(policy + "/scaling_cur_freq"), table.front()) << "the update did not rewrite it";
  EXPECT_EQ(std::filesystem::status(file).permissions(), std::filesystem::perms::owner_read);
}

TEST_P(SimulatedBoardFixture, EmcHonoursLockAndCap) {
  const std::string bpmp = "/sys/kernel/debug/bpmp/debug/clk/emc/";
  if (!root.exists(bpmp + "rate")) GTEST_SKIP() << "no BPMP EMC in this fixture";
  const auto captured = read(bpmp + "rate");
  const std::string rates = "/sys/kernel/debug/bpmp/debug/emc/possible_rates";
  const std::int64_t low =
      root.exists(rates) ? sysfs::read_int_list(root, rates).front() * 1000 : read(bpmp + "min_rate");
  const std::int64_t high =
      root.exists(rates) ? sysfs::read_int_list(root, rates).back() * 1000 : read(bpmp + "max_rate");
  ASSERT_NE(low, captured) << "the fixture must not idle at the lowest rate for this test";
  write(bpmp + "rate", std::to_string(low));
  EXPECT_EQ(read(bpmp + "rate"), captured) << "BPMP ignores a rate written without the lock";
  write(bpmp + "mrq_rate_locked", "1");
  write(bpmp + "rate", std::to_string(low));
  EXPECT_EQ(read(bpmp + "rate"), low);
  write(bpmp + "rate", std::to_string(high));
  for (const char* cap : {"/sys/kernel/nvpmodel_clk_cap/emc", "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap"}) {
    if (!root.exists(cap)) continue;
    write(cap, std::to_string(low));
    EXPECT_EQ(read(bpmp + "rate"), low) << "the nvpmodel cap bounds a locked rate";
  }
}

// AGX Thor's EMC is a devfreq node (bwmgr): its rate follows min_freq/max_freq, and the nvpmodel
// cap bounds it.
TEST_P(SimulatedBoardFixture, DevfreqEmcFollowsItsLimitsAndTheCap) {
  const std::string bwmgr = "/sys/class/devfreq/bwmgr/";
  if (!root.exists(bwmgr + "cur_freq")) GTEST_SKIP() << "no devfreq EMC in this fixture";
  const auto table = sysfs::read_int_list(root, bwmgr + "available_frequencies");
  ASSERT_GE(table.size(), 2u);
  write(bwmgr + "min_freq", std::to_string(table.front()));
  write(bwmgr + "max_freq", std::to_string(table.front()));
  EXPECT_EQ(read(bwmgr + "cur_freq"), table.front());
  write(bwmgr + "max_freq", std::to_string(table.back()));
  write(bwmgr + "min_freq", std::to_string(table.back()));
  EXPECT_EQ(read(bwmgr + "cur_freq"), table.back());
  const std::string cap = "/sys/kernel/nvpmodel_clk_cap/emc";
  if (root.exists(cap)) {
    write(cap, std::to_string(table.front()));
    EXPECT_EQ(read(bwmgr + "cur_freq"), table.front()) << "the nvpmodel cap bounds the rate";
  }
}

TEST_P(SimulatedBoardFixture, CpuPowerFollowsHostUtilization) {
  sim.pin_host_utilization(0.0);
  sim.update();
  const auto idle = sim.power();
  EXPECT_EQ(idle.host_utilization, 0.0);
  sim.pin_host_utilization(1.5);  // clamped to a fraction
  sim.update();
  const auto busy = sim.power();
  EXPECT_EQ(busy.host_utilization, 1.0);
  EXPECT_GT(busy.cpu_mw, idle.cpu_mw);
  EXPECT_EQ(busy.gpu_mw, idle.gpu_mw);
  sim.pin_host_utilization(std::nullopt);  // measured again: some fraction of the host's time
  sim.update();
  EXPECT_GE(sim.power().host_utilization, 0.0);
  EXPECT_LE(sim.power().host_utilization, 1.0);
}

// /proc/stat advances with the model's CPU load while the sensors are refreshed (a monitor reads
// the load from it), and only then: reading the board or writing a control leaves it as it is.
TEST_P(SimulatedBoardFixture, ProcStatFollowsTheModelsCpuLoadWhileSensorsRefresh) {
  const auto read_stat = [this] { return sysfs::read_proc_stat(root); };
  const auto busy_over = [&](double utilization) {
    sim.pin_host_utilization(utilization);
    sim.update_sensors();
    const auto before = read_stat();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sim.update_sensors();
    const auto after = read_stat();
    EXPECT_EQ(after.cpus.size(), before.cpus.size());
    EXPECT_GE(after.all.total_ticks() - before.all.total_ticks(), 20u * before.cpus.size()) << "0.3 s at 100 Hz";
    return *sysfs::busy_fraction(before.all, after.all);
  };
  EXPECT_NEAR(busy_over(0.0), 0.0, 0.02) << "an idle board's CPUs are idle";
  EXPECT_NEAR(busy_over(0.7), 0.7, 0.05);
  const std::string stat = sysfs::read_string(root, "/proc/stat");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  sim.update();  // after a control write
  EXPECT_EQ(sysfs::read_string(root, "/proc/stat"), stat);
  // A CPU taken offline loses its line (the kernel prints online CPUs only).
  if (const auto secondary = first_online_secondary_cpu()) {
    const std::size_t lines = read_stat().cpus.size();
    write(*secondary, "0");
    sim.update_sensors();
    EXPECT_EQ(read_stat().cpus.size(), lines - 1);
  }
}

TEST_P(SimulatedBoardFixture, RailsAndTemperaturesFollowPower) {
  // The model's CPU term follows the host's load; pinned, the two states differ only by the
  // board's own settings (unpinned, a host going from busy to idle between them once made the
  // 8-core state draw less than the 1-core one).
  sim.pin_host_utilization(0.5);
  const auto monitors = discover_power_monitors(root);
  ASSERT_FALSE(monitors.devices.empty());
  std::vector<std::string> zones;
  for (const auto& z : root.glob("/sys/devices/virtual/thermal/thermal_zone*/temp")) zones.push_back(z);
  ASSERT_FALSE(zones.empty());
  // Everything down: one core, lowest clocks.
  for (int cpu = 63; cpu >= 1; --cpu) {
    const std::string path = std::string(kCpu) + "/cpu" + std::to_string(cpu) + "/online";
    if (root.exists(path)) sysfs::write_string(root, path, "0\n");
  }
  sim.update();
  const double low_mw = sim.power().total_mw;
  std::map<std::string, std::int64_t> low_temps;
  for (const auto& z : zones) low_temps[z] = read(z);
  // Everything up.
  for (int cpu = 1; cpu < 64; ++cpu) {
    const std::string path = std::string(kCpu) + "/cpu" + std::to_string(cpu) + "/online";
    if (root.exists(path)) sysfs::write_string(root, path, "1\n");
  }
  sim.update();  // the clusters are active again (on Linux >= 5.19 their files answered EBUSY)
  for (const auto& policy : root.glob(std::string(kCpu) + "/cpufreq/policy*")) {
    sysfs::write_string(root, policy + "/scaling_governor", "performance\n");
  }
  sim.update();
  const double high_mw = sim.power().total_mw;
  EXPECT_GT(high_mw, low_mw + 500);
  for (const auto& z : zones) {
    if (low_temps[z] <= -256000) {
      EXPECT_EQ(read(z), low_temps[z]) << z << " is power-gated and stays so";
    } else {
      EXPECT_GT(read(z), low_temps[z]) << z;
    }
  }
  // Values are integers in the driver's units (mV, mA) and plausible for a Jetson module.
  for (const auto& device : discover_power_monitors(root).devices) {
    for (const auto& rail : device.rails) {
      if (!rail.connected) continue;
      EXPECT_TRUE(rail.voltage_mv.has_value()) << rail.name;
      EXPECT_LT(rail.current_ma.value_or(0), 20000) << rail.name;
    }
  }
  EXPECT_GT(high_mw, 2000);
  EXPECT_LT(high_mw, 60000);
}

TEST_P(SimulatedBoardFixture, BackgroundRefreshKeepsRailsCurrent) {
  const auto monitors = discover_power_monitors(root);
  ASSERT_FALSE(monitors.devices.empty());
  // Corrupt one modelled reading: the refresh thread must rewrite it from the model.
  std::optional<std::string> current;
  for (const auto& rail : monitors.devices.front().rails) {
    if (rail.connected && rail.current_ma && *rail.current_ma > 0) current = rail.current_path;
  }
  if (!current) GTEST_SKIP() << "no modelled rail with current on the first monitor";
  const auto modelled = read(*current);
  sysfs::write_string(root, *current, "999999\n");
  sim.start_refresh(std::chrono::milliseconds(20));
  for (int i = 0; i < 200 && read(*current) == 999999; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  sim.stop_refresh();
  EXPECT_NE(read(*current), 999999);
  EXPECT_NEAR(static_cast<double>(read(*current)), static_cast<double>(modelled),
              0.8 * static_cast<double>(modelled) + 50);
}

INSTANTIATE_TEST_SUITE_P(Boards, SimulatedBoardFixture, ::testing::ValuesIn(list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SimulatedBoardFixture);

TEST(SimulatedBoardTest, StatePersistsInAGivenDirectory) {
  const auto fixtures = list_board_fixtures();
  if (fixtures.empty()) GTEST_SKIP() << "no board fixtures";
  testing::TempDir dir;
  const fs::path root_dir = dir.path() / "board";
  {
    SimulatedBoard sim(fixtures.front(), root_dir);
    sysfs::write_string(
        sim.root(),
        std::string(kCpu) + "/cpufreq/" + sim.root().list(std::string(kCpu) + "/cpufreq").front() + "/scaling_governor",
        "performance\n");
  }
  ASSERT_TRUE(SimulatedBoard::is_simulated_root(root_dir));
  SimulatedBoard again(fixtures.front(), root_dir);
  EXPECT_EQ(again.fixture(), fixtures.front());
  const std::string policy =
      std::string(kCpu) + "/cpufreq/" + again.root().list(std::string(kCpu) + "/cpufreq").front();
  EXPECT_EQ(sysfs::read_string(again.root(), policy + "/scaling_governor"), "performance");

  dir.write("other/file", "x");
  EXPECT_THROW(SimulatedBoard(fixtures.front(), dir.path() / "other"), std::invalid_argument);
  EXPECT_THROW(SimulatedBoard("no-such-board"), std::invalid_argument);
}

TEST(SimulatedBoardTest, ReopeningDerivesTheClocksFromLimitsThatAKilledWriterLeft) {
  const auto fixtures = list_board_fixtures();
  if (fixtures.empty()) GTEST_SKIP() << "no board fixtures";
  testing::TempDir dir;
  const fs::path root_dir = dir.path() / "board";
  std::string devfreq;
  std::int64_t top = 0;
  {
    SimulatedBoard sim(fixtures.front(), root_dir);
    const auto gpu = discover_gpu(sim.root()).gpu;
    if (!gpu || gpu->available_freqs_hz.empty()) GTEST_SKIP() << fixtures.front() << " has no GPU frequency table";
    devfreq = gpu->devfreq_path;
    top = gpu->available_freqs_hz.back();
    ASSERT_NE(sysfs::read_int(sim.root(), devfreq + "/cur_freq"), top);
    // The limits are written and the writer dies before it updates the model.
    sysfs::write_string(sim.root(), devfreq + "/max_freq", std::to_string(top) + "\n");
    sysfs::write_string(sim.root(), devfreq + "/min_freq", std::to_string(top) + "\n");
  }
  SimulatedBoard again(fixtures.front(), root_dir);
  EXPECT_EQ(sysfs::read_int(again.root(), devfreq + "/cur_freq"), top);
}

}  // namespace
}  // namespace jetchar::jetson
