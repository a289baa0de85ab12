#include "jetson/gpu_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/jetson/board_tree.h"

using jetchar::jetson::discover_gpu;
using jetchar::testing::BoardTree;
using ::testing::HasSubstr;

namespace {

// A devfreq node NAME whose device is DEV with device-tree node NODE.
std::string devfreq(const std::string& name, const std::string& dev, const std::string& compatible,
                    const std::string& node_name) {
  return "link /sys/class/devfreq/" + name + " -> ../../devices/" + dev + "/devfreq/" + name + "\n" +
         "link /sys/devices/" + dev + "/devfreq/" + name + "/device -> ../../../" + dev.substr(dev.rfind('/') + 1) +
         "\n" + "link /sys/devices/" + dev + "/of_node -> /sys/firmware/devicetree/base/" + node_name + "\n" +
         "dtstrings /sys/firmware/devicetree/base/" + node_name + "/compatible = " + compatible + "\n" +
         "dtstrings /sys/firmware/devicetree/base/" + node_name + "/name = " + node_name + "\n" +
         "file /sys/devices/" + dev + "/devfreq/" + name + "/cur_freq = 1000\n";
}

}  // namespace

TEST(GpuDeviceTest, FindsTheGpuByCompatibleAmongOtherDevfreqNodes) {
  BoardTree tree(devfreq("15340000.vic", "platform/15340000.vic", "nvidia,tegra234-vic", "vic") +
                 devfreq("17000000.ga10b", "platform/17000000.ga10b", "nvidia,ga10b", "gpu") +
                 "file /sys/devices/platform/17000000.ga10b/devfreq/17000000.ga10b/available_frequencies = 3 1 2\n"
                 "file /sys/devices/platform/gpu.0/load = 150\n"
                 "file /sys/devices/platform/gpu.0/railgate_enable = 0\n");
  const auto d = discover_gpu(tree.root());
  ASSERT_TRUE(d.gpu) << d.absent.value_or("");
  EXPECT_EQ(d.gpu->devfreq_name, "17000000.ga10b");
  EXPECT_EQ(d.gpu->device_path, "/sys/devices/platform/17000000.ga10b");
  EXPECT_EQ(d.gpu->matched_by, "of_node/compatible nvidia,ga10b");
  EXPECT_EQ(d.gpu->available_freqs_hz, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(d.gpu->cur_freq_hz, 1000);
  EXPECT_FALSE(d.gpu->max_freq_hz);
  EXPECT_EQ(d.gpu->load_path, "/sys/devices/platform/gpu.0/load");
  EXPECT_EQ(d.gpu->load_permille, 150);
  EXPECT_EQ(d.gpu->railgate_enabled, false);
}

TEST(GpuDeviceTest, MatchesByNodeNameWhenCompatibleIsUnknown) {
  BoardTree tree(devfreq("17000000.gb10b", "17000000.gb10b", "nvidia,future-gpu", "gb10b") +
                 "file /sys/devices/17000000.gb10b/load = 7\n");
  const auto d = discover_gpu(tree.root());
  ASSERT_TRUE(d.gpu);
  EXPECT_EQ(d.gpu->matched_by, "of_node/name gb10b");
  EXPECT_EQ(d.gpu->load_path, "/sys/devices/17000000.gb10b/load");
}

TEST(GpuDeviceTest, NoMatchingNodeOrNoDevfreqIsAbsent) {
  BoardTree only_vic(devfreq("15340000.vic", "15340000.vic", "nvidia,tegra234-vic", "vic"));
  const auto d = discover_gpu(only_vic.root());
  EXPECT_FALSE(d.gpu);
  EXPECT_THAT(*d.absent, HasSubstr("rail-gated"));
  BoardTree empty("dir /sys\n");
  EXPECT_THAT(*discover_gpu(empty.root()).absent, HasSubstr("no /sys/class/devfreq"));
}
