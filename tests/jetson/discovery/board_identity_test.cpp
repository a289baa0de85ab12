#include "jetson/discovery/board_identity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "jetson/simulated/board_fixture.h"
#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

using jetchar::jetson::BoardKind;
using jetchar::jetson::discover_board_identity;
using jetchar::jetson::FixtureManifest;
using jetchar::jetson::parse_dts_filename;
using jetchar::testing::TempDir;
using ::testing::HasSubstr;

namespace {

// A board tree from manifest text (format: tests/fixtures/boards/README.md).
struct Tree {
  explicit Tree(std::string_view manifest) {
    FixtureManifest::parse(manifest, dir.path(), "test.manifest").expand(dir.path());
  }
  jetchar::sysfs::Root root() const { return jetchar::sysfs::Root(dir.path()); }
  TempDir dir;
};

constexpr std::string_view kOrinDt =
    "link /proc/device-tree -> /sys/firmware/devicetree/base\n"
    "dtstrings /sys/firmware/devicetree/base/model = NVIDIA Jetson AGX Orin Developer Kit\n"
    "dtstrings /sys/firmware/devicetree/base/compatible = nvidia,p3737-0000+p3701-0005 | nvidia,tegra234 | "
    "nvidia,tegra23x\n";

}  // namespace

TEST(BoardIdentityTest, DtsFilenameGivesSocModuleAndCarrier) {
  auto d = parse_dts_filename("/dvs/x/kernel-dts/tegra234-p3767-0003-p3768-0000-a0.dts", "f");
  EXPECT_EQ(d.soc, "tegra234");
  EXPECT_EQ(d.module_pnumber, "p3767-0003");
  EXPECT_EQ(d.carrier_pnumber, "p3768-0000");
  d = parse_dts_filename("tegra210-p3448-0000-p3449-0000-b00", "f");
  EXPECT_EQ(d.module_pnumber, "p3448-0000");
  d = parse_dts_filename("tegra186-quill-p3310-1000-c03-00-base.dts", "f");
  EXPECT_EQ(d.soc, "tegra186");
  EXPECT_EQ(d.module_pnumber, "p3310-1000");
  EXPECT_FALSE(d.carrier_pnumber);
  // "p3668-all": the module slot without a variant; the carrier is still the second part.
  d = parse_dts_filename("tegra194-p3668-all-p3509-0000.dts", "f");
  EXPECT_FALSE(d.module_pnumber);
  EXPECT_EQ(d.carrier_pnumber, "p3509-0000");
}

TEST(BoardIdentityTest, MalformedDtsFilenameIsAFormatError) {
  for (const char* bad : {"", "x.dts", "tegra-p3448.dts", "tegra234", "/a/b/", "tegraXYZ-p1"}) {
    try {
      parse_dts_filename(bad, "/proc/device-tree/nvidia,dtsfilename");
      FAIL() << "accepted '" << bad << "'";
    } catch (const jetchar::sysfs::FormatError& e) {
      EXPECT_EQ(e.path(), "/proc/device-tree/nvidia,dtsfilename");
      EXPECT_THAT(e.what(), HasSubstr("tegra234-p3767"));
    }
  }
}

TEST(BoardIdentityTest, ModuleFromCompatibleAndJetpackFromRelease) {
  Tree tree(std::string(kOrinDt) +
            "file /etc/nv_tegra_release = # R36 (release), REVISION: 4.4, GCID: 1, BOARD: generic\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_EQ(id.kind, BoardKind::kJetson);
  EXPECT_EQ(id.soc, "tegra234");
  EXPECT_EQ(id.module_pnumber, "p3701-0005");
  EXPECT_EQ(id.module_source, "compatible");
  EXPECT_EQ(id.carrier_pnumber, "p3737-0000");
  EXPECT_EQ(id.family, "AGX Orin");
  EXPECT_EQ(id.module_name, "Jetson AGX Orin 64GB");
  EXPECT_EQ(id.l4t->version(), "36.4.4");
  EXPECT_EQ(id.jetpack, "6.2.1");
  EXPECT_FALSE(id.l4t_note);
}

TEST(BoardIdentityTest, AgxXavierModuleComesFromDtsFilename) {
  Tree tree(
      "dtstrings /sys/firmware/devicetree/base/model = Jetson-AGX\n"
      "dtstrings /sys/firmware/devicetree/base/compatible = nvidia,p2972-0000 | nvidia,galen | nvidia,tegra194\n"
      "dtstrings /sys/firmware/devicetree/base/nvidia,dtsfilename = /x/tegra194-p2888-0001-p2822-0000.dts\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_EQ(id.device_tree_path, "/sys/firmware/devicetree/base");
  EXPECT_EQ(id.module_pnumber, "p2888-0001");
  EXPECT_EQ(id.module_source, "nvidia,dtsfilename");
  EXPECT_EQ(id.family, "AGX Xavier");
  // No release file, no package: the kernel release is not there either, so just say so.
  EXPECT_FALSE(id.l4t);
  EXPECT_THAT(*id.l4t_note, HasSubstr("no /etc/nv_tegra_release"));
}

TEST(BoardIdentityTest, FallbacksBoardIdsModelPackageAndKernelHint) {
  Tree tree(
      "dtstrings /proc/device-tree/model = NVIDIA Jetson Nano Developer Kit\n"
      "dtstrings /proc/device-tree/compatible = nvidia,jetson-nano | nvidia,tegra210\n"
      "dtstrings /proc/device-tree/nvidia,boardids = 3448:0000:B00\n"
      "file /var/lib/dpkg/status <<END\nPackage: bash\nVersion: 5.0\n\nPackage: nvidia-l4t-core\nStatus: install ok\n"
      "Version: 32.7.4-20230608212426\nEND\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_EQ(id.module_pnumber, "p3448");
  EXPECT_EQ(id.module_source, "nvidia,boardids");
  EXPECT_EQ(id.family, "Nano");
  EXPECT_EQ(id.family_source, "model");
  EXPECT_EQ(id.l4t->version(), "32.7.4");
  EXPECT_EQ(id.jetpack, "4.6.4");

  Tree hinted(
      "dtstrings /proc/device-tree/compatible = nvidia,tegra234\n"
      "file /proc/sys/kernel/osrelease = 5.15.148-tegra\n");
  const auto h = discover_board_identity(hinted.root());
  EXPECT_EQ(h.family, "unknown tegra234 board");
  EXPECT_THAT(*h.l4t_note, HasSubstr("suggests R36"));
}

TEST(BoardIdentityTest, UnknownL4tIsReportedNotGuessed) {
  Tree tree(std::string(kOrinDt) + "file /etc/nv_tegra_release = # R36 (release), REVISION: 9.9, GCID: 1\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_FALSE(id.jetpack);
  EXPECT_THAT(*id.l4t_note, HasSubstr("36.9.9 is not in"));
}

TEST(BoardIdentityTest, MalformedInputsAreFormatErrors) {
  Tree release(std::string(kOrinDt) + "file /etc/nv_tegra_release = R36 garbage\n");
  try {
    discover_board_identity(release.root());
    FAIL();
  } catch (const jetchar::sysfs::FormatError& e) {
    EXPECT_EQ(e.path(), "/etc/nv_tegra_release");
    EXPECT_THAT(e.what(), HasSubstr("R36 garbage"));
  }
  Tree binary_model("raw /proc/device-tree/model = Jetson\\x01\\x02\\0\n");
  EXPECT_THROW(discover_board_identity(binary_model.root()), jetchar::sysfs::FormatError);
  Tree bad_dts(std::string(kOrinDt) + "dtstrings /proc/device-tree/nvidia,dtsfilename = not-a-dts-name\n");
  EXPECT_THROW(discover_board_identity(bad_dts.root()), jetchar::sysfs::FormatError);
}

TEST(BoardIdentityTest, MachineWithoutDeviceTreeIsAHost) {
  Tree tree(
      "file /proc/sys/kernel/osrelease = 6.1.0-28-amd64\nfile /etc/os-release = PRETTY_NAME=\"Debian GNU/Linux 12 "
      "(bookworm)\"\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_EQ(id.kind, BoardKind::kHost);
  EXPECT_FALSE(id.device_tree_path);
  EXPECT_FALSE(id.family);
  EXPECT_EQ(id.os_name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(id.l4t_note, "not a Jetson");
}

TEST(BoardIdentityTest, NonTegraDeviceTreeIsAHost) {
  Tree tree(
      "dtstrings /proc/device-tree/model = Raspberry Pi 4 Model B\n"
      "dtstrings /proc/device-tree/compatible = raspberrypi,4-model-b | brcm,bcm2711\n");
  const auto id = discover_board_identity(tree.root());
  EXPECT_EQ(id.kind, BoardKind::kHost);
  EXPECT_EQ(id.model, "Raspberry Pi 4 Model B");
  EXPECT_FALSE(id.family);
}
