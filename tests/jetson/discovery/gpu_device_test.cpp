#include "jetson/discovery/gpu_device.h"

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
         "dtstrings /sys/firmware/devicetree/base/" + node_name + "/name = " + node_name + "\n" + "file /sys/devices/" +
         dev + "/devfreq/" + name + "/cur_freq = 1000\n";
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

// AGX Thor (nvidia.ko): the clock devices under the GPU's PCI function have no device-tree node;
// the GPC clock's node is the GPU, the NVD clock's is not, and there is no load file.
std::string nvidia_ko_clock(const std::string& pci, const std::string& name) {
  return "link /sys/class/devfreq/" + name + " -> ../../devices/" + pci + "/" + name + "/devfreq/" + name + "\n" +
         "link /sys/devices/" + pci + "/" + name + "/devfreq/" + name + "/device -> ../../../" + name + "\n" +
         "file /sys/devices/" + pci + "/" + name + "/devfreq/" + name + "/cur_freq = 315000000\n";
}

TEST(GpuDeviceTest, FindsNvidiaKoGpcClockUnderAnNvidiaPciDevice) {
  const std::string pci = "pci0000:00/0000:00:00.0/0000:01:00.0";
  BoardTree tree(nvidia_ko_clock(pci, "gpu-nvd-0") + nvidia_ko_clock(pci, "gpu-gpc-0") + "file /sys/devices/" + pci +
                 "/vendor = 0x10de\n");
  const auto d = discover_gpu(tree.root());
  ASSERT_TRUE(d.gpu) << d.absent.value_or("");
  EXPECT_EQ(d.gpu->devfreq_name, "gpu-gpc-0");
  EXPECT_EQ(d.gpu->device_path, "/sys/devices/" + pci + "/gpu-gpc-0");
  EXPECT_EQ(d.gpu->matched_by, "nvidia.ko GPC clock of PCI 0000:01:00.0");
  EXPECT_FALSE(d.gpu->of_compatible);
  EXPECT_FALSE(d.gpu->load_path);
  EXPECT_FALSE(d.gpu->load_permille) << "no load file is absent, never 0";
  EXPECT_THAT(d.gpu->load_absent.value_or(""), HasSubstr("NVML"));
  EXPECT_TRUE(d.unavailable.empty());
}

TEST(GpuDeviceTest, GpcClockOfAnotherVendorIsNotTheGpu) {
  const std::string pci = "pci0000:00/0000:00:00.0/0000:01:00.0";
  BoardTree tree(nvidia_ko_clock(pci, "gpu-gpc-0") + "file /sys/devices/" + pci + "/vendor = 0x1002\n");
  const auto d = discover_gpu(tree.root());
  EXPECT_FALSE(d.gpu);
  EXPECT_THAT(d.absent.value_or(""), HasSubstr("gpu-gpc-N under an NVIDIA PCI device"));
}
