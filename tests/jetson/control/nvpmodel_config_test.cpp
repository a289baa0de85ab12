#include "jetson/control/nvpmodel_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "jetson/control/control_points.h"
#include "jetson/control/power_mode.h"
#include "sysfs/root.h"
#include "tests/jetson/board_tree.h"
#include "tests/support/build_tree.h"
#include "tests/support/file_text.h"
#include "tests/support/temp_dir.h"

namespace jetchar::jetson {
namespace {

using jetchar::testing::read_text;

constexpr const char* kSmall = R"(# comment
< PARAM TYPE=FILE NAME=CPU_ONLINE >
CORE_1 /sys/devices/system/cpu/cpu1/online   # trailing comment

< PARAM TYPE=CLOCK NAME=GPU >
FREQ_TABLE /sys/a/available_frequencies
MAX_FREQ /sys/a/max_freq
MAX_FREQ_KNEXT /sys/b/max_freq

< POWER_MODEL ID=0 NAME=MAXN >
CPU_ONLINE CORE_1 1
GPU MAX_FREQ -1

< POWER_MODEL ID=3 NAME=LOW >
CPU_ONLINE CORE_1 0
GPU MAX_FREQ 420750000

< PM_CONFIG DEFAULT=3 >
)";

TEST(NvpmodelConfigTest, ParsesParamsModesAndDefault) {
  const auto config = parse_nvpmodel_config(kSmall, "small.conf");
  ASSERT_EQ(config.params.size(), 2u);
  EXPECT_EQ(config.params[0].type, ParamType::kFile);
  EXPECT_EQ(config.params[0].arguments[0].path, "/sys/devices/system/cpu/cpu1/online");
  const auto* max = config.find_param("GPU")->find("MAX_FREQ");
  ASSERT_NE(max, nullptr);
  EXPECT_EQ(max->path, "/sys/a/max_freq");
  EXPECT_EQ(max->knext, "/sys/b/max_freq");
  EXPECT_EQ(config.default_mode, 3);
  ASSERT_EQ(config.modes.size(), 2u);
  EXPECT_EQ(config.mode(0).find("GPU", "MAX_FREQ")->clock_value, std::nullopt);  // -1 = no cap
  EXPECT_EQ(config.mode(3).find("GPU", "MAX_FREQ")->clock_value, 420750000);
  EXPECT_EQ(config.mode(3).find("CPU_ONLINE", "CORE_1")->value, "0");
  EXPECT_EQ(config.mode(3).settings[1].line, 16);
}

// L4T R35's Xavier NX conf caps the board input with TYPE=HWMON lines: the hwmon class folder of
// the INA3221 and the attribute in its hwmonN folder (stock nvpmodel_t194_p3668.conf, R35).
constexpr const char* kHwmonParam = R"(< PARAM TYPE=HWMON NAME=VDDIN_OC_LIMIT >
WARN /sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon curr1_max
CRIT /sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon curr1_crit

< POWER_MODEL ID=0 NAME=MODE_15W_2CORE >
VDDIN_OC_LIMIT WARN 3000
VDDIN_OC_LIMIT CRIT 5000

< POWER_MODEL ID=8 NAME=MODE_20W_6CORE >
VDDIN_OC_LIMIT WARN 4000
VDDIN_OC_LIMIT CRIT 5000

< PM_CONFIG DEFAULT=0 >
)";

TEST(NvpmodelConfigTest, ParsesHwmonParamsAsFilesInTheirHwmonFolder) {
  const auto config = parse_nvpmodel_config(kHwmonParam, "nx.conf");
  const ParamDefinition* limit = config.find_param("VDDIN_OC_LIMIT");
  ASSERT_NE(limit, nullptr);
  EXPECT_TRUE(limit->hwmon);
  EXPECT_EQ(limit->type, ParamType::kFile);
  const ParamArgument* warn = limit->find("WARN");
  ASSERT_NE(warn, nullptr);
  EXPECT_EQ(warn->path, "/sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon");
  EXPECT_EQ(warn->hwmon_attribute, "curr1_max");
  EXPECT_EQ(config.mode(8).find("VDDIN_OC_LIMIT", "WARN")->value, "4000");
  EXPECT_FALSE(config.mode(8).find("VDDIN_OC_LIMIT", "WARN")->is_clock);
}

TEST(NvpmodelConfigTest, HwmonParamResolvesToTheBoardsHwmonFolderAndIsWritten) {
  testing::BoardTree board(R"(file /sys/devices/system/cpu/online = 0
file /sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon/hwmon3/name = ina3221
file /sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon/hwmon3/curr1_max = 3000
file /sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon/hwmon3/curr1_crit = 5000
file /var/lib/nvpmodel/status = pmode:0000
)");
  board.dir.write("etc/nvpmodel.conf", kHwmonParam);
  const sysfs::Root root = board.root();
  const auto config = read_nvpmodel_config(root);
  EXPECT_EQ(existing_param_path(root, *config.find_param("VDDIN_OC_LIMIT")->find("CRIT")),
            "/sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon/hwmon3/curr1_crit");
  const DeviceControls controls = discover_device_controls(root);
  const PowerModePlan plan = plan_nvpmodel_mode(root, controls, 8, false);
  ASSERT_EQ(plan.writes.size(), 2u);  // WARN 3000 -> 4000 and the status; CRIT is already 5000
  EXPECT_EQ(plan.writes[0].path, "/sys/devices/platform/c250000.i2c/i2c-7/7-0040/hwmon/hwmon3/curr1_max");
  EXPECT_EQ(plan.writes[0].value, "4000\n");
  EXPECT_TRUE(controls.allowed(root, plan.writes[0].path));
  // Without an hwmonN folder the setting is skipped with a note, as an absent FILE path is.
  testing::BoardTree bare("file /sys/devices/system/cpu/online = 0\n");
  EXPECT_EQ(existing_param_path(bare.root(), *config.find_param("VDDIN_OC_LIMIT")->find("WARN")), std::nullopt);
}

TEST(NvpmodelConfigTest, ModeByIdOrName) {
  const auto config = parse_nvpmodel_config(kSmall, "small.conf");
  EXPECT_EQ(config.mode(std::string_view("LOW")).id, 3);
  EXPECT_EQ(config.mode(std::string_view("3")).name, "LOW");
  try {
    config.mode(std::string_view("low"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "power mode 'low' is not defined in small.conf; valid modes (id or name): 0 (MAXN), 3 (LOW)");
  }
}

TEST(NvpmodelConfigTest, UnknownModeListsValidOnes) {
  const auto config = parse_nvpmodel_config(kSmall, "small.conf");
  try {
    config.mode(7);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "power mode 7 is not defined in small.conf; valid modes: 0 (MAXN), 3 (LOW)");
  }
}

struct BadCase {
  std::string text;
  std::string message;
};

class NvpmodelConfigErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(NvpmodelConfigErrorTest, ReportsFileLineAndExpectation) {
  try {
    parse_nvpmodel_config(GetParam().text, "bad.conf");
    FAIL() << "parsed";
  } catch (const NvpmodelParseError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().message);
  }
}

const std::string kTail = "< POWER_MODEL ID=0 NAME=A >\n< PM_CONFIG DEFAULT=0 >\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, NvpmodelConfigErrorTest,
    ::testing::Values(
        BadCase{"GPU MAX_FREQ 1\n",
                "bad.conf:1: expected a '< PARAM ... >', '< POWER_MODEL ... >' or '< PM_CONFIG ... >' "
                "header before settings, got 'GPU MAX_FREQ 1'"},
        BadCase{"< PARAM TYPE=FILE NAME=X\n",
                "bad.conf:1: expected a header ending in '>', got '< PARAM TYPE=FILE NAME=X'"},
        BadCase{"< PARAM TYPE=DIR NAME=X >\n",
                "bad.conf:1: expected TYPE=FILE, TYPE=CLOCK or TYPE=HWMON, got TYPE='DIR'"},
        BadCase{"< PARAM TYPE=HWMON NAME=X >\nWARN /a/hwmon\n",
                "bad.conf:2: expected 'ARG_NAME /path ATTRIBUTE' in HWMON PARAM X, got 'WARN /a/hwmon'"},
        BadCase{"< PARAM TYPE=HWMON NAME=X >\nWARN /a/hwmon hwmon1/curr1_max\n",
                "bad.conf:2: expected a file name (no '/') as the attribute of WARN in HWMON PARAM X, got "
                "'hwmon1/curr1_max'"},
        BadCase{"< PARAM TYPE=FILE NAME=X >\nA /a curr1_max\n",
                "bad.conf:2: expected 'ARG_NAME /path' in PARAM X, got 'A /a curr1_max'"},
        BadCase{"< PARAM TYPE=FILE >\n", "bad.conf:1: expected NAME=... in the PARAM header"},
        BadCase{"< MODEL ID=1 >\n", "bad.conf:1: expected PARAM, POWER_MODEL, PM_CONFIG or FAN_CONFIG, got 'MODEL'"},
        BadCase{"< POWER_MODEL ID=x NAME=A >\n", "bad.conf:1: expected a non-negative integer ID, got ID='x'"},
        BadCase{"< PARAM TYPE=FILE NAME=X >\nA relative/path\n",
                "bad.conf:2: expected an absolute path for A in PARAM X, got 'relative/path'"},
        BadCase{"< PARAM TYPE=FILE NAME=X >\nA /a\nA /b\n",
                "bad.conf:3: argument A is given twice in PARAM X (first on line 2)"},
        BadCase{"< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /a\n< POWER_MODEL ID=0 NAME=A >\nGPU MAX_FREQ 1e9\n"
                "< PM_CONFIG DEFAULT=0 >\n",
                "bad.conf:4: expected an integer frequency or -1 (no cap) for GPU MAX_FREQ, got '1e9'"},
        BadCase{"< PARAM TYPE=CLOCK NAME=GPU >\nMAX_FREQ /a\n< POWER_MODEL ID=0 NAME=A >\nGPU MIN_FREQ 1\n"
                "< PM_CONFIG DEFAULT=0 >\n",
                "bad.conf:4: PARAM GPU has no argument 'MIN_FREQ'; it has: MAX_FREQ"},
        BadCase{"< POWER_MODEL ID=0 NAME=A >\nCPU MAX_FREQ 1\n< PM_CONFIG DEFAULT=0 >\n",
                "bad.conf:2: POWER_MODEL A uses PARAM 'CPU' which is not defined; defined: none"},
        BadCase{"< POWER_MODEL ID=0 NAME=A >\nCPU MAX_FREQ\n",
                "bad.conf:2: expected 'PARAM ARG VALUE' in POWER_MODEL A, got 'CPU MAX_FREQ'"},
        BadCase{"< POWER_MODEL ID=0 NAME=A >\n", "bad.conf:2: expected '< PM_CONFIG DEFAULT=n >' (it is mandatory)"},
        BadCase{"< PM_CONFIG DEFAULT=0 >\n", "bad.conf:2: expected at least one '< POWER_MODEL ID=n NAME=... >' block"},
        BadCase{"< POWER_MODEL ID=0 NAME=A >\n< PM_CONFIG DEFAULT=2 >\n",
                "bad.conf:2: PM_CONFIG DEFAULT=2 names no POWER_MODEL; defined ids: 0"},
        BadCase{kTail + "< POWER_MODEL ID=0 NAME=B >\n", "bad.conf:3: POWER_MODEL ID=0 is defined twice"},
        BadCase{
            "< PM_CONFIG DEFAULT=0 >\nX Y Z\n",
            "bad.conf:2: expected a new '< ... >' header: PM_CONFIG and FAN_CONFIG take no settings, got 'X Y Z'"}));

// Every configuration in the fixtures parses (NVIDIA's stock copies and the two stand-ins their
// headers name), and the modes carry the caps the reference gives for them.
TEST(NvpmodelConfigFixture, ReadsEveryStockConfiguration) {
  int files = 0;
  const auto dir = testing::source_dir() / "tests/fixtures/nvpmodel";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".conf") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    const auto config = parse_nvpmodel_config(read_text(entry.path()), entry.path().filename().string());
    EXPECT_GE(config.modes.size(), 2u);
    EXPECT_NE(config.find_mode(config.default_mode), nullptr);
    for (const auto& mode : config.modes) {
      const auto summary = summarize(mode);
      ASSERT_FALSE(summary.online_cores.empty()) << mode.name;
      EXPECT_EQ(summary.online_cores.front(), 0) << mode.name << ": CPU0 is always online";
      EXPECT_TRUE(summary.gpu_max_hz.has_value()) << mode.name;
      EXPECT_FALSE(summary.cpu_max_khz.empty()) << mode.name;
    }
  }
  EXPECT_GE(files, 6);
}

TEST(NvpmodelConfigFixture, StockModesCarryReferenceCaps) {
  const auto dir = testing::source_dir() / "tests/fixtures/nvpmodel";
  // The AGX Xavier R32 file is a stand-in (its header says so) holding the reference's stock R32
  // caps; the stock R35 file has the same MODE_10W.
  const auto xavier = parse_nvpmodel_config(read_text(dir / "agx_xavier_r32.conf"), "xavier");
  const auto mode10 = summarize(xavier.mode(1));
  EXPECT_EQ(xavier.mode(1).name, "MODE_10W");
  EXPECT_EQ(mode10.online_cores, (std::vector<int>{0, 1}));
  EXPECT_EQ(mode10.tpc_pg_mask, "5");
  EXPECT_EQ(mode10.cpu_max_khz.at("CPU_DENVER_0"), 1200000);
  EXPECT_EQ(mode10.gpu_max_hz.value(), 520000000);
  EXPECT_EQ(xavier.default_mode, 2);
  EXPECT_EQ(xavier.fan_config.at("DEFAULT"), "cool");
  const auto xavier35 = parse_nvpmodel_config(read_text(dir / "agx_xavier_r35.conf"), "xavier35");
  const auto stock10 = summarize(xavier35.mode(1));
  EXPECT_EQ(xavier35.mode(1).name, "MODE_10W");
  EXPECT_EQ(stock10.online_cores, mode10.online_cores);
  EXPECT_EQ(stock10.tpc_pg_mask, mode10.tpc_pg_mask);
  EXPECT_EQ(stock10.cpu_max_khz.at("CPU_DENVER_0"), 1200000);
  EXPECT_EQ(stock10.gpu_max_hz, mode10.gpu_max_hz);
  EXPECT_EQ(xavier35.default_mode, 7);
  EXPECT_EQ(xavier35.mode(7).name, "MODE_15W_DESKTOP");
  EXPECT_NE(xavier35.find_param("NALL_PVA_VPS"), nullptr);  // the Android copy's spelling, kept

  // AGX Orin 32GB (p3701-0004): 8 cores in two clusters, stock nvpmodel_p3701_0004.conf.
  const auto orin = parse_nvpmodel_config(read_text(dir / "agx_orin_r35.conf"), "orin");
  const auto mode15 = summarize(orin.mode(1));
  EXPECT_EQ(orin.mode(1).name, "MODE_15W");
  EXPECT_EQ(mode15.online_cores.size(), 4u);
  EXPECT_EQ(mode15.offline_cores, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(mode15.tpc_pg_mask, "248");
  EXPECT_EQ(mode15.cpu_max_khz.at("CPU_A78_0"), 1113600);
  EXPECT_EQ(orin.find_param("CPU_A78_2"), nullptr);
  EXPECT_EQ(orin.mode(3).name, "MODE_40W");
  EXPECT_EQ(orin.default_mode, 2);
  const auto maxn = summarize(orin.mode(0));
  EXPECT_EQ(maxn.online_cores.size(), 8u);
  EXPECT_EQ(maxn.tpc_pg_mask, "128");
  ASSERT_TRUE(maxn.gpu_max_hz.has_value());
  EXPECT_FALSE(maxn.gpu_max_hz->has_value());  // -1 = no cap
  ASSERT_TRUE(maxn.emc_max_hz.has_value());
  EXPECT_FALSE(maxn.emc_max_hz->has_value());  // 0 = no cap
  EXPECT_TRUE(orin.find_param("GPU")->find("MAX_FREQ")->knext.has_value());
}

TEST(NvpmodelConfigTest, ReadsThroughRootAndNamesSymlinkTarget) {
  testing::TempDir dir;
  dir.write("etc/nvpmodel/nvpmodel_x.conf", kSmall);
  std::filesystem::create_symlink("/etc/nvpmodel/nvpmodel_x.conf", dir.path() / "etc/nvpmodel.conf");
  const sysfs::Root root(dir.path());
  EXPECT_EQ(read_nvpmodel_config(root).modes.size(), 2u);
  dir.write("etc/nvpmodel/nvpmodel_x.conf", "< PM_CONFIG DEFAULT=x >\n");
  try {
    read_nvpmodel_config(root);
    FAIL();
  } catch (const NvpmodelParseError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/etc/nvpmodel.conf (/etc/nvpmodel/nvpmodel_x.conf):1: expected a mode id in DEFAULT=, got 'x'");
  }
}

}  // namespace
}  // namespace jetchar::jetson
