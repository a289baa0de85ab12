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

}  // namespace
}  // namespace jetchar::cli
