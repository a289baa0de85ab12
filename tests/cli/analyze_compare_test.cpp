// `jetchar analyze compare` through the real jetchar: two exports of two board kinds side by side,
// a baseline by name, and a baseline that measured nothing as bad input naming the kinds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/exit_code.h"
#include "tests/support/file_text.h"
#include "tests/support/jetchar_cli.h"
#include "tests/support/temp_dir.h"

namespace jetchar::cli {
namespace {

using jetchar::testing::read_text;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

TEST(AnalyzeCompareTest, TwoBoardKindsSideBySide) {
  testing::TempDir dir;
  const auto jetson = dir.write("orin.csv",
                                "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
                                "lenet,MAXN,AGX Orin,16,1,2.0,20\nlenet,15W,AGX Orin,16,1,4.0,16\n");
  const auto desktop = dir.write("rtx.csv",
                                 "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
                                 "lenet,default,RTX 3090,16,1,0.5,60\nlenet,250W,RTX 3090,16,1,0.4,80\n");
  const auto out = dir.path() / "out.txt", err = dir.path() / "err.txt";
  ASSERT_EQ(testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string()}, out, err), kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out), HasSubstr("lenet (warm epoch time, epoch energy; baseline AGX Orin)"));
  EXPECT_THAT(read_text(out), ContainsRegex("RTX 3090 +2 +250W +0.4 +5.000 +default +60 +3.750 +0.267"));
  ASSERT_EQ(testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string(), "--baseline", "RTX 3090"},
                                 out, err),
            kOk);
  EXPECT_THAT(read_text(out), ContainsRegex("AGX Orin +2 +MAXN +2 +0.200 +15W +16 +0.267 +3.750"));
  EXPECT_EQ(
      testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string(), "--baseline", "Nano"}, out, err),
      kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("--baseline 'Nano' measured nothing here; the board kinds are 'AGX Orin', "
                                        "'RTX 3090'"));
  EXPECT_EQ(testing::run_jetchar({"analyze", "compare", jetson.string()}, out, err), kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("no configuration was measured on two board kinds (kinds: AGX Orin)"));
}

// Each kind's own sensors (a Jetson's board input, a desktop card's NVML counter) draw different
// boundaries; --energy meter judges both at the wall, by the meter each run configured.
TEST(AnalyzeCompareTest, TheEnergySourceIsNamedAndSelectable) {
  testing::TempDir dir;
  const std::string header =
      "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j,energy_source,meter,meter_energy_j,"
      "meter_avg_power_w\n";
  const auto jetson = dir.write("orin.csv", header +
                                                "lenet,MAXN,AGX Orin,16,1,2.0,20,VDD_IN,hioki:/dev/ttyUSB0,30,15\n"
                                                "lenet,15W,AGX Orin,16,1,4.0,16,VDD_IN,hioki:/dev/ttyUSB0,28,7\n");
  const auto desktop =
      dir.write("rtx.csv", header +
                               "lenet,default,RTX 3090,16,1,0.5,60,NVML energy counter,hioki:/dev/ttyUSB1,100,200\n"
                               "lenet,250W,RTX 3090,16,1,0.4,80,NVML energy counter,hioki:/dev/ttyUSB1,110,275\n");
  const auto out = dir.path() / "out.txt", err = dir.path() / "err.txt";
  ASSERT_EQ(testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string()}, out, err), kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out), HasSubstr("energy from AGX Orin: VDD_IN; RTX 3090: NVML energy counter\n"));
  EXPECT_THAT(read_text(out), ContainsRegex("RTX 3090 +2 +250W +0.4 +5.000 +default +60 +3.750 +0.267"));

  ASSERT_EQ(
      testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string(), "--energy", "meter"}, out, err),
      kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out),
              HasSubstr("energy from AGX Orin: meter hioki:/dev/ttyUSB0; RTX 3090: meter hioki:/dev/ttyUSB1\n"));
  // At the wall the Orin's least-energy mode spends 28 J, the card's 100 J.
  EXPECT_THAT(read_text(out), ContainsRegex("AGX Orin +2 +MAXN +2 +1.000 +15W +28 +1.000 +1.000"));
  EXPECT_THAT(read_text(out), ContainsRegex("RTX 3090 +2 +250W +0.4 +5.000 +default +100 +3.571 +0.280"));

  // Runs without a meter have no wall energy: never the board's in its place.
  const auto no_meter = dir.write("plain.csv",
                                  "workload,mode,device,batch,epoch,epoch_time_s,epoch_energy_j\n"
                                  "lenet,default,RTX 3090,16,1,0.5,60\n");
  EXPECT_EQ(
      testing::run_jetchar({"analyze", "compare", jetson.string(), no_meter.string(), "--energy", "meter"}, out, err),
      kOk)
      << read_text(err);
  EXPECT_THAT(read_text(out), HasSubstr("RTX 3090: not measured"));
  EXPECT_THAT(read_text(out), ContainsRegex("RTX 3090 +1 +default +0.5 +4.000 +default +- +- +-"));
  EXPECT_EQ(
      testing::run_jetchar({"analyze", "compare", no_meter.string(), no_meter.string(), "--energy", "meter"}, out, err),
      kBadInput);
  EXPECT_THAT(read_text(err), HasSubstr("--energy meter: no OK run of these results has an external meter's energy"));
  EXPECT_EQ(
      testing::run_jetchar({"analyze", "compare", jetson.string(), desktop.string(), "--energy", "wall"}, out, err),
      kUsage);
  EXPECT_THAT(read_text(err), HasSubstr("--energy 'wall' is not valid; use board or meter"));
}

}  // namespace
}  // namespace jetchar::cli
