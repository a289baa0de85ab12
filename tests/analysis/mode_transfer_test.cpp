#include "analysis/mode_transfer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/adaptive_profile.h"
#include "tests/analysis/ground_truths.h"

namespace jetchar::analysis {
namespace {

std::vector<ConfigPoint> pick(const std::vector<ConfigPoint>& pts, const std::vector<std::size_t>& idx) {
  std::vector<ConfigPoint> out;
  for (std::size_t i : idx) out.push_back(pts[i]);
  return out;
}

struct Mape {
  double time = 0, power = 0, time_inside = 0;
};

// MAPE against the noise-free truth over every mode of the grid, and the share of measured times
// inside the intervals.
template <typename Model>
Mape score(const Model& model, const std::vector<PowerMode>& modes, const std::vector<ConfigPoint>& pts,
           const testing::Truth& truth) {
  Mape m;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    auto pr = model.predict(modes[i]);
    m.time += std::abs(pr.time_s.value / testing::truth_time_s(modes[i], truth) - 1);
    m.power += std::abs(pr.power_w->value / testing::truth_power_w(modes[i], truth) - 1);
    m.time_inside += pts[i].time_s >= pr.time_s.low && pts[i].time_s <= pr.time_s.high;
  }
  const auto n = static_cast<double>(modes.size());
  return {100 * m.time / n, 100 * m.power / n, m.time_inside / n};
}

// The reference: a GPU-bound workload profiled widely (50 modes of the space-filling design).
ModePredictor reference_on(const std::vector<PowerMode>& modes, const testing::Truth& truth) {
  return ModePredictor::fit(pick(testing::measure(modes, truth, 500), space_filling_design(modes, 50)));
}

TEST(ModeTransfer, FiveModesOfANewWorkloadBeatFittingFiveModesAlone) {
  const auto modes = testing::orin_grid_1440();
  double transfer_t = 0, transfer_p = 0, alone_t = 0, alone_p = 0, inside = 0, cases = 0;
  for (const auto& board : {testing::gpu_bound(), testing::curved_leaky()}) {
    const ModePredictor reference = reference_on(modes, board);
    for (const auto& workload : {testing::memory_bound(), testing::launch_bound(), testing::balanced()}) {
      // A workload of another shape on the same board as the reference.
      const testing::Truth truth = testing::on_board_of(workload, board);
      const auto pts = testing::measure(modes, truth, 77);
      const auto five = pick(pts, space_filling_design(modes, 5));
      const ModeTransfer transfer = ModeTransfer::fit(reference, five);
      const Mape t = score(transfer, modes, pts, truth);
      const Mape alone = score(ModePredictor::fit(five), modes, pts, truth);
      // Five modes cannot pin a memory- or launch-bound time shape after a GPU-bound reference
      // (both methods miss by about 13 % there); power, whose V/f shape is the board's, is where
      // the reference helps most (51 % summed over the six cases against 61 % alone).
      // Stacked with the own fit, the transfer is never much worse than the five modes alone.
      EXPECT_LE(t.power, alone.power * 1.15) << truth.name;
      EXPECT_LE(t.time, alone.time * 1.1) << truth.name;
      EXPECT_TRUE(transfer.predicts_power());
      transfer_t += t.time, transfer_p += t.power, alone_t += alone.time, alone_p += alone.power;
      inside += t.time_inside, ++cases;
      std::printf("%s: transfer from 5 modes %.2f %% time, %.2f %% power (time weights %.2f %.2f %.2f, power %.2f "
                  "%.2f %.2f); 5 modes alone %.2f %%, %.2f %%\n", truth.name.c_str(), t.time, t.power,
                  transfer.time_weights()[0], transfer.time_weights()[1], transfer.time_weights()[2],
                  transfer.power_weights()[0], transfer.power_weights()[1], transfer.power_weights()[2], alone.time,
                  alone.power);
    }
  }
  // On average over the six cases, transfer beats fitting the five modes alone in both.
  EXPECT_LT(transfer_t, alone_t);
  EXPECT_LT(transfer_p, alone_p);
  EXPECT_GE(inside / cases, 0.8);
}

TEST(ModeTransfer, OneBoardKindSeedsAnother) {
  // The reference: gpu_bound on the AGX-Orin-like grid; the target: the same workload on the
  // Xavier-NX-like grid (other clocks, fewer cores), where it runs slower and draws less.
  const ModePredictor reference = reference_on(testing::orin_grid_1440(), testing::gpu_bound());
  testing::Truth nx = testing::gpu_bound();
  nx.name = "gpu_bound_on_nx";
  nx.gpu_work = 12;
  nx.idle_w = 3.0;
  nx.k_gpu = 7;
  const auto modes = testing::xavier_nx_grid_360();
  const auto pts = testing::measure(modes, nx, 88);
  const auto five = pick(pts, space_filling_design(modes, 5));
  const Mape t = score(ModeTransfer::fit(reference, five), modes, pts, nx);
  const Mape alone = score(ModePredictor::fit(five), modes, pts, nx);
  EXPECT_LE(t.time, alone.time * 1.1);  // 0.95 % against 0.92 %: the time shape is easy here
  EXPECT_LT(t.power, alone.power);
  std::printf("Orin -> NX: transfer from 5 modes %.2f %% time, %.2f %% power; 5 modes alone %.2f %%, %.2f %%\n", t.time,
              t.power, alone.time, alone.power);
}

TEST(ModeTransfer, BadInputIsNamed) {
  const auto modes = testing::xavier_nx_grid_360();
  const auto pts = testing::measure(modes, testing::gpu_bound(), 3);
  const ModePredictor reference = ModePredictor::fit(pick(pts, space_filling_design(modes, 8)));
  std::vector<ConfigPoint> one(pts.begin(), pts.begin() + 1);
  EXPECT_THAT([&] { ModeTransfer::fit(reference, one); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("at least 2 profiled modes")));
  std::vector<ConfigPoint> two(pts.begin(), pts.begin() + 2);
  EXPECT_THAT([&] { ModeTransfer::fit(reference, two, 1.2); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("level 1.2 is outside (0, 1)")));
  two[1].time_s = -1;
  EXPECT_THAT([&] { ModeTransfer::fit(reference, two); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("time -1 s")));
  two[1].time_s = 1;
  two[1].key.mode.gpu_freq_khz.reset();
  EXPECT_THAT([&] { ModeTransfer::fit(reference, two); },
              ::testing::ThrowsMessage<std::invalid_argument>(::testing::HasSubstr("lacks a knob")));
}

}  // namespace
}  // namespace jetchar::analysis
