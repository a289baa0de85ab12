#include "analysis/board_comparison.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "analysis/results_file.h"

namespace jetchar::analysis {
namespace {

// Two kinds, two modes each at batch 16; batch 32 only on one kind; the thread count each board
// resolved differs and does not split the configuration.
constexpr const char* kComparedRuns =
    "workload,mode,device,batch,threads,epoch,epoch_time_s,epoch_energy_j\n"
    "lenet,MAXN,AGX Orin,16,12,1,2.0,20\n"
    "lenet,15W,AGX Orin,16,12,1,4.0,16\n"
    "lenet,default,RTX 3090,16,32,1,0.5,60\n"
    "lenet,250W,RTX 3090,16,32,1,0.4,80\n"
    "lenet,MAXN,AGX Orin,32,12,1,1.5,18\n";

TEST(BoardComparison, EachKindAtItsBestModeAgainstTheBaseline) {
  const auto records = parse_results_csv(kComparedRuns, "r.csv");
  const auto comparisons = compare_boards(records, {});
  ASSERT_EQ(comparisons.size(), 1u);  // batch 32 ran on one kind only
  const auto& c = comparisons[0];
  EXPECT_EQ(c.key.axes.at("batch"), "16");
  EXPECT_FALSE(c.key.axes.contains("threads"));
  ASSERT_EQ(c.kinds.size(), 2u);
  EXPECT_EQ(c.kinds[0].kind, "AGX Orin");  // the first by name is the baseline
  EXPECT_DOUBLE_EQ(c.kinds[0].speedup, 1);
  const KindFigures& rtx = c.kinds[1];
  EXPECT_EQ(rtx.modes, 2u);
  EXPECT_EQ(rtx.fastest.key.mode.name, "250W");
  EXPECT_EQ(rtx.least_energy.key.mode.name, "default");
  EXPECT_DOUBLE_EQ(rtx.speedup, 2.0 / 0.4);
  EXPECT_DOUBLE_EQ(*rtx.energy_ratio, 60.0 / 16);
  EXPECT_DOUBLE_EQ(*rtx.perf_per_watt_ratio, 16.0 / 60);

  const auto against_rtx = compare_boards(records, {.baseline = "RTX 3090", .aggregate = {}});
  EXPECT_EQ(against_rtx[0].kinds[0].kind, "RTX 3090");
  EXPECT_DOUBLE_EQ(against_rtx[0].kinds[1].speedup, 0.4 / 2.0);
  EXPECT_THROW(compare_boards(records, {.baseline = "Nano", .aggregate = {}}), std::invalid_argument);
}

// A store names each run's board model, which is its kind whatever its device is called.
TEST(BoardComparison, TheBoardModelIsTheKind) {
  RunRecord r;
  r.device = "p3701-0005/1421022123456";
  EXPECT_EQ(board_kind_of(r), "p3701-0005/1421022123456");
  r.board = "NVIDIA Jetson AGX Orin Developer Kit";
  EXPECT_EQ(board_kind_of(r), "NVIDIA Jetson AGX Orin Developer Kit");
}

}  // namespace
}  // namespace jetchar::analysis
