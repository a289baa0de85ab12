#include "jetson/discovery/board_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "jetson/board_description.h"
#include "jetson/discovery/board_info_json.h"
#include "jetson/discovery/board_info_text.h"
#include "jetson/simulated/board_fixture.h"
#include "tests/jetson/board_tree.h"
#include "tests/support/build_tree.h"

namespace fs = std::filesystem;
using namespace jetchar::jetson;
using jetchar::testing::BoardTree;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

BoardOrigin sim_origin(const std::string& name) {
  BoardOrigin origin;
  origin.board = "sim:" + name;
  origin.simulated = true;
  origin.fixture = name;
  return origin;
}

// Exactly what `jetchar device info --board sim:<name> --json` prints.
std::string device_info_json(const std::string& name) {
  const BoardDescription board = describe_board("sim:" + name, std::nullopt);
  return to_json(board.info, board.origin).dump(2) + "\n";
}

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

// Golden files: tests/expected/device-info/<fixture>.json. Regenerate after an intended change
// with JETCHAR_UPDATE_GOLDEN=1 (see tests/expected/README.md) and review the diff.
class DeviceInfoGoldenFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceInfoGoldenFixture, JsonMatchesTheGoldenFile) {
  const std::string actual = device_info_json(GetParam());
  const fs::path golden = jetchar::testing::source_dir() / "tests/expected/device-info" / (GetParam() + ".json");
  if (const char* update = std::getenv("JETCHAR_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with JETCHAR_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(actual, file_text(golden)) << "device info of " << GetParam() << " differs from " << golden;
}

TEST_P(DeviceInfoGoldenFixture, TextSaysSimulatedAndHasUnits) {
  const ExpandedFixture fixture(GetParam());
  const BoardInfo info = discover_board_info(jetchar::sysfs::Root(fixture.root_dir()));
  const std::string text = to_text(info, sim_origin(fixture.name()));
  EXPECT_THAT(text, HasSubstr("SIMULATED"));
  EXPECT_THAT(text, HasSubstr("kind:            jetson"));
  EXPECT_THAT(text, HasSubstr(" MHz"));
  EXPECT_THAT(text, HasSubstr(" mW"));
  EXPECT_THAT(text, HasSubstr(" C"));
  EXPECT_THAT(text, Not(HasSubstr("unknown")));
}

INSTANTIATE_TEST_SUITE_P(AllBoards, DeviceInfoGoldenFixture, ::testing::ValuesIn(list_board_fixtures()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Spot checks that the golden files encode what the reference says about each board.
TEST(BoardInfoFixture, BoardsMatchTheReference) {
  const auto info = [](const char* name) {
    const ExpandedFixture fixture(name);
    return discover_board_info(jetchar::sysfs::Root(fixture.root_dir()));
  };
  const BoardInfo nano = info("nano-r32");
  EXPECT_EQ(nano.identity.family, "Nano");
  EXPECT_EQ(nano.identity.jetpack, "4.6.1");
  EXPECT_EQ(nano.gpu.gpu->devfreq_name, "57000000.gpu");
  EXPECT_EQ(nano.gpu.gpu->load_path, "/sys/devices/57000000.gpu/load");
  EXPECT_EQ(nano.emc.interface, "tegra210 clk debugfs");
  EXPECT_EQ(nano.power.board_input_rail, "POM_5V_IN");
  EXPECT_TRUE(nano.thermal.zones[4].fixed_reading);

  const BoardInfo xavier = info("agx-xavier-r32");
  EXPECT_EQ(xavier.identity.module_pnumber, "p2888-0001");
  EXPECT_EQ(xavier.identity.family, "AGX Xavier");
  EXPECT_EQ(xavier.cpu.online, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(xavier.cpu.policies.size(), 4u);
  EXPECT_FALSE(xavier.power.board_input_rail);
  EXPECT_EQ(xavier.power.summed_rails.size(), 6u);

  const BoardInfo nx = info("xavier-nx-r32");
  EXPECT_EQ(nx.emc.access, EmcAccess::kNeedsRoot);
  EXPECT_EQ(nx.identity.module_pnumber, "p3668-0000");
  EXPECT_EQ(nx.power.board_input_rail, "VDD_IN");

  const BoardInfo orin35 = info("agx-orin-r35");
  EXPECT_EQ(orin35.gpu.gpu->devfreq_name, "17000000.ga10b");
  EXPECT_EQ(orin35.gpu.gpu->load_path, "/sys/devices/platform/gpu.0/load");
  EXPECT_EQ(orin35.emc.access, EmcAccess::kNeedsRoot);
  EXPECT_FALSE(orin35.power.devices[1].rails[0].connected);  // "NC"
  EXPECT_TRUE(orin35.thermal.zones[2].powered_off);

  const BoardInfo orin36 = info("agx-orin-r36");
  EXPECT_EQ(orin36.gpu.gpu->devfreq_name, "17000000.gpu");
  EXPECT_EQ(orin36.gpu.gpu->device_path, "/sys/devices/platform/bus@0/17000000.gpu");
  EXPECT_EQ(orin36.identity.jetpack, "6.2.1");
  EXPECT_EQ(orin36.emc.cap_path, "/sys/kernel/nvpmodel_clk_cap/emc");
  EXPECT_EQ(orin36.power.total_kind, "sum of module rails");
  // VDDQ_VDD2_1V8AO is fed by VIN_SYS_5V0: adding it to the sum would count its power twice.
  EXPECT_EQ(orin36.power.summed_rails, (std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}));
  EXPECT_EQ(orin36.power.sub_rails, (std::vector<std::string>{"VDDQ_VDD2_1V8AO"}));
  EXPECT_NE(
      to_text(orin36, sim_origin("agx-orin-r36")).find("VDDQ_VDD2_1V8AO is fed by VIN_SYS_5V0; not added to the total"),
      std::string::npos);
  EXPECT_TRUE(info("agx-xavier-r32").power.sub_rails.empty());
  EXPECT_EQ(orin36.cpu.policies.size(), 3u);
  EXPECT_EQ(orin36.fans.fans[0].rpm, 1456);
  ASSERT_EQ(orin36.host.hwmon.size(), 1u);
  EXPECT_EQ(orin36.host.hwmon[0].name, "nvme");

  const BoardInfo nano36 = info("orin-nano-r36");
  EXPECT_EQ(nano36.identity.family, "Orin Nano");
  EXPECT_FALSE(nano36.identity.dts_filename);
  EXPECT_EQ(nano36.cpu.policies[1].related_cpus, (std::vector<int>{4, 5}));
  EXPECT_EQ(nano36.power.board_input_rail, "VDD_IN");
}

TEST(BoardInfoTest, JetsonRequestOnAHostIsAnInvalidArgument) {
  BoardTree tree("file /sys/devices/system/cpu/online = 0\n");
  EXPECT_THROW(discover_board_info(tree.root(), BoardRequest::kJetson), std::invalid_argument);
  const BoardInfo host = discover_board_info(tree.root());
  EXPECT_EQ(host.identity.kind, BoardKind::kHost);
  EXPECT_FALSE(host.gpu.gpu);
  EXPECT_EQ(host.emc.access, EmcAccess::kAbsent);
  EXPECT_FALSE(host.memory_total_kib);
}

TEST(BoardInfoTest, HostRequestOnAJetsonTreeSkipsTegraParts) {
  const ExpandedFixture fixture("agx-orin-r36");
  const BoardInfo info = discover_board_info(jetchar::sysfs::Root(fixture.root_dir()), BoardRequest::kHost);
  EXPECT_EQ(info.identity.kind, BoardKind::kHost);
  EXPECT_FALSE(info.gpu.gpu);
  EXPECT_THAT(*info.gpu.absent, HasSubstr("--board host"));
  EXPECT_EQ(info.cpu.policies.size(), 3u);
  EXPECT_EQ(info.memory_total_kib, 64335836);
}

TEST(BoardInfoTest, JsonMarksAbsentThingsAndUnits) {
  BoardTree tree("file /sys/devices/system/cpu/online = 0\n");
  BoardOrigin origin;
  origin.root = tree.dir.path().string();
  const auto json = to_json(discover_board_info(tree.root()), origin);
  EXPECT_EQ(json["schema_version"], kDeviceInfoSchemaVersion);
  EXPECT_EQ(json["source"]["simulated"], false);
  EXPECT_EQ(json["board"]["kind"], "host");
  EXPECT_TRUE(json["gpu"].contains("absent"));
  EXPECT_TRUE(json["cpu"]["cpufreq"].contains("absent"));
  EXPECT_TRUE(json["memory_total_kib"].is_null());
  EXPECT_TRUE(json["host_sensors"]["powercap"].contains("absent"));
}

// This machine's real "/": discovery must succeed; off a Jetson it reports a generic host.
TEST(HostBoardInfoTest, ThisMachineIsDiscoveredWithoutErrors) {
  const jetchar::sysfs::Root root("/");
  BoardInfo info;
  ASSERT_NO_THROW(info = discover_board_info(root));
  EXPECT_FALSE(info.cpu.online.empty());
  if (info.identity.kind == BoardKind::kHost) {
    EXPECT_FALSE(info.gpu.gpu);
    EXPECT_FALSE(info.identity.l4t);
    BoardOrigin origin;
    origin.root = "/";
    const std::string text = to_text(info, origin);
    EXPECT_THAT(text, HasSubstr("kind:            host"));
    EXPECT_THAT(text, Not(HasSubstr("SIMULATED")));
  }
}
