#include "jetson/control/power_mode.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "jetson/control/control_points.h"
#include "sysfs/attribute.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

TEST(PowerModeTest, MegahertzAsTheBoardListsThem) {
  EXPECT_EQ(parse_mhz("1420.8", 1000, "CPU"), 1420800);
  EXPECT_EQ(parse_mhz("114.75", 1000000, "GPU"), 114750000);
  EXPECT_EQ(parse_mhz("1300.5", 1000000, "GPU"), 1300500000);
  EXPECT_EQ(format_mhz(1420800, 1000), "1420.8");
  EXPECT_EQ(format_mhz(114750000, 1000000), "114.75");
  EXPECT_EQ(format_mhz(1377000000, 1000000), "1377");
  for (const char* bad : {"", "abc", "-5", "0", "12x", "1e99", " 100"}) {
    EXPECT_THROW(parse_mhz(bad, 1000, "CPU"), std::invalid_argument) << bad;
  }
}

// A two-cluster board in miniature: enough for the planner's ordering rules.
class PowerModePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.write("sys/devices/system/cpu/online", "0-3\n");
    dir.write("sys/devices/system/cpu/possible", "0-3\n");
    for (int cpu = 1; cpu < 4; ++cpu) dir.write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/online", "1\n");
    for (int p : {0, 2}) {
      const std::string d = "sys/devices/system/cpu/cpufreq/policy" + std::to_string(p) + "/";
      dir.write(d + "related_cpus", p == 0 ? "0-1\n" : "2-3\n");
      dir.write(d + "affected_cpus", p == 0 ? "0-1\n" : "2-3\n");
      dir.write(d + "scaling_available_frequencies", "115200 729600 1420800 2201600\n");
      dir.write(d + "scaling_available_governors", "performance schedutil\n");
      dir.write(d + "scaling_governor", "schedutil\n");
      dir.write(d + "scaling_min_freq", "729600\n");
      dir.write(d + "scaling_max_freq", "2201600\n");
      dir.write(d + "scaling_cur_freq", "1420800\n");
    }
    controls = discover_device_controls(root);
  }

  testing::TempDir dir;
  sysfs::Root root{dir.path()};
  DeviceControls controls;
};

TEST_F(PowerModePlanTest, LoweringWritesMinFirstAndOfflinesLast) {
  CustomPowerMode mode;
  mode.cpu_cores = 2;
  mode.cpu_freq_mhz = "115.2";
  mode.dvfs = DvfsSetting::kOff;
  const auto plan = plan_custom_mode(root, controls, mode, false);
  std::vector<std::string> order;
  for (const auto& w : plan.writes) order.push_back(w.path + "=" + w.value);
  // policy0 goes down to 115.2 MHz, pinned: the new max is below the current min (729.6 MHz),
  // so min is written first.
  EXPECT_EQ(order, (std::vector<std::string>{"/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq=115200\n",
                                             "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq=115200\n",
                                             "/sys/devices/system/cpu/cpu3/online=0\n",
                                             "/sys/devices/system/cpu/cpu2/online=0\n"}));
  EXPECT_EQ(plan.notes.size(), 1u) << "policy2 ends with every core offline";
  ASSERT_EQ(plan.settle.size(), 1u);
  EXPECT_TRUE(plan.settle[0].pinned);
}

TEST_F(PowerModePlanTest, RaisingWritesMaxFirstAndOnlinesFirst) {
  dir.write("sys/devices/system/cpu/cpu3/online", "0\n");
  dir.write("sys/devices/system/cpu/cpufreq/policy2/scaling_min_freq", "115200\n");
  dir.write("sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq", "115200\n");
  controls = discover_device_controls(root);
  CustomPowerMode mode;
  mode.cpu_cores = 4;
  mode.cluster_freq_mhz["policy2"] = "1420.8";
  mode.dvfs = DvfsSetting::kOff;
  const auto plan = plan_custom_mode(root, controls, mode, false);
  ASSERT_GE(plan.writes.size(), 3u);
  EXPECT_EQ(plan.writes[0].path, "/sys/devices/system/cpu/cpu3/online");
  // policy0 pinned at its current max (DVFS off without a frequency, as jetson_clocks does).
  EXPECT_EQ(plan.writes[1].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq");
  EXPECT_EQ(plan.writes[1].value, "2201600\n");
  EXPECT_EQ(plan.writes[2].path, "/sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq");
  EXPECT_EQ(plan.writes[3].path, "/sys/devices/system/cpu/cpufreq/policy2/scaling_min_freq");
}

TEST_F(PowerModePlanTest, InvalidRequestsNameValueAndWhatIsValid) {
  CustomPowerMode mode;
  mode.cpu_freq_mhz = "1000";
  try {
    plan_custom_mode(root, controls, mode, false);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "CPU frequency 1000 MHz is not available on policy0 (cpu 0-1); available: 115.2 729.6 1420.8 2201.6 (or "
              "pass --snap for the nearest)");
  }
  const auto snapped = plan_custom_mode(root, controls, mode, true);
  EXPECT_EQ(snapped.writes.front().value, "729600\n");
  EXPECT_NE(snapped.notes.front().find("snapped to 729.6 MHz"), std::string::npos);

  CustomPowerMode cores;
  cores.cpu_cores = 5;
  EXPECT_THROW(plan_custom_mode(root, controls, cores, false), std::invalid_argument);
  cores.cpu_cores = 0;
  try {
    plan_custom_mode(root, controls, cores, false);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CPU0 never goes offline"), std::string::npos);
  }
  CustomPowerMode gpu;
  gpu.gpu_freq_mhz = "600";
  EXPECT_THROW(plan_custom_mode(root, controls, gpu, false), std::invalid_argument);  // no GPU here
  EXPECT_THROW(plan_custom_mode(root, controls, CustomPowerMode{}, false), std::invalid_argument);
}

TEST_F(PowerModePlanTest, AllowlistHoldsOnlyDiscoveredControls) {
  EXPECT_TRUE(controls.allowed(root, "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"));
  EXPECT_TRUE(controls.allowed(root, "/sys/devices/system/cpu/cpu3/online"));
  EXPECT_FALSE(controls.allowed(root, "/sys/devices/system/cpu/online"));
  EXPECT_FALSE(controls.allowed(root, "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"));
}

// Every stock mode writes the GPU's power/control "on" first and "auto" last (two PARAMs, one
// file): the plan keeps both writes, so the GPU ends at "auto" as nvpmodel leaves it, also when it
// read "auto" before (each setting compares with what the plan wrote there so far).
TEST_F(PowerModePlanTest, NvpmodelWritesOfOneFileFollowEachOther) {
  dir.write("sys/devices/17000000.gv11b/power/control", "auto\n");
  std::filesystem::create_symlink("17000000.gv11b", dir.path() / "sys/devices/gpu.0");
  dir.write("etc/nvpmodel.conf", R"(< PARAM TYPE=FILE NAME=GPU_POWER_CONTROL_ENABLE >
GPU_PWR_CNTL_EN /sys/devices/gpu.0/power/control
< PARAM TYPE=FILE NAME=GPU_POWER_CONTROL_DISABLE >
GPU_PWR_CNTL_DIS /sys/devices/gpu.0/power/control
< POWER_MODEL ID=0 NAME=MAXN >
GPU_POWER_CONTROL_ENABLE GPU_PWR_CNTL_EN on
GPU_POWER_CONTROL_DISABLE GPU_PWR_CNTL_DIS auto
GPU_POWER_CONTROL_DISABLE GPU_PWR_CNTL_DIS auto
< PM_CONFIG DEFAULT=0 >
)");
  controls = discover_device_controls(root);
  const auto plan = plan_nvpmodel_mode(root, controls, 0, false);
  std::vector<std::string> order;
  for (const auto& w : plan.writes) order.push_back(w.path + "=" + w.value);
  EXPECT_EQ(order, (std::vector<std::string>{"/sys/devices/gpu.0/power/control=on\n",
                                             "/sys/devices/gpu.0/power/control=auto\n"}));
}

}  // namespace
}  // namespace jetchar::jetson
