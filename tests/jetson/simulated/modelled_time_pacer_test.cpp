// The simulated board's pacer: a minibatch's compute ends no earlier than its modelled time, a
// host slower than the model is counted and said, the modelled time follows the mode read back
// from the board, and the rails' activity follows the modelled busy shares while it lives.
#include "jetson/simulated/modelled_time_pacer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "jetson/discovery/board_info.h"
#include "jetson/simulated/simulated_board.h"
#include "sysfs/attribute.h"

namespace jetchar::jetson {
namespace {

// LeNet-5's figures as model_work.h counts them (approximately; the pacer only scales them).
const ModelWork kLenet{416.5e3, 6.5e3, 61'706, 10, 5};

BoardInfo info_of(const SimulatedBoard& board) { return discover_board_info(board.root(), BoardRequest::kAuto); }

TEST(ModelledTimePacerTest, ComputeEndsAtTheModelledTimeAndASlowerHostIsCounted) {
  SimulatedBoard board("agx-orin-r36");
  std::string why_not;
  auto pacer = ModelledTimePacer::for_training(board, info_of(board), kLenet, 16, why_not);
  ASSERT_NE(pacer, nullptr) << why_not;
  const double modelled_s = pacer->minibatch_time().total_s;
  ASSERT_GT(modelled_s, 0);
  const auto start = ModelledTimePacer::Clock::now();
  const auto end = pacer->pace(start, 16);
  EXPECT_GE(std::chrono::duration<double>(end - start).count(), modelled_s);
  EXPECT_EQ(pacer->paced(), 1u);
  // Compute that began long ago has overrun the model: counted, not waited for.
  pacer->pace(ModelledTimePacer::Clock::now() - std::chrono::seconds(10), 16);
  EXPECT_EQ(pacer->host_slower(), 1u);

  const PacedTime paced = pacer->paced_time();
  EXPECT_NE(paced.time_model.find("modelled"), std::string::npos);
  EXPECT_DOUBLE_EQ(paced.minibatch_compute_s, modelled_s);
  EXPECT_EQ(paced.paced, 1u);
  EXPECT_EQ(paced.host_slower, 1u);
}

TEST(ModelledTimePacerTest, TheModelledTimeFollowsTheModeReadBack) {
  SimulatedBoard board("agx-orin-r36");
  std::string why_not;
  auto fast = ModelledTimePacer::for_training(board, info_of(board), kLenet, 16, why_not);
  ASSERT_NE(fast, nullptr) << why_not;
  const double fast_s = fast->minibatch_time().total_s;
  fast.reset();
  // Every CPU cluster down to its lowest frequency: launch-bound LeNet slows down.
  for (const auto& policy : board.root().glob("/sys/devices/system/cpu/cpufreq/policy*")) {
    sysfs::write_string(board.root(), policy + "/scaling_max_freq", "729600");
  }
  board.update();
  auto slow = ModelledTimePacer::for_training(board, info_of(board), kLenet, 16, why_not);
  ASSERT_NE(slow, nullptr) << why_not;
  EXPECT_DOUBLE_EQ(slow->clocks().cpu_ghz, 0.7296);
  EXPECT_GT(slow->minibatch_time().total_s, 1.5 * fast_s);
}

TEST(ModelledTimePacerTest, TheRailsFollowTheModelledBusySharesWhileItLives) {
  SimulatedBoard board("agx-orin-r36");
  std::string why_not;
  {
    auto pacer = ModelledTimePacer::for_training(board, info_of(board), kLenet, 16, why_not);
    ASSERT_NE(pacer, nullptr) << why_not;
    board.update_sensors();
    EXPECT_DOUBLE_EQ(board.power().host_utilization, pacer->minibatch_time().cpu_busy);
  }
  board.pin_host_utilization(0.25);  // measured again once the pacer is gone; pinned here to compare
  board.update_sensors();
  EXPECT_DOUBLE_EQ(board.power().host_utilization, 0.25);
}

TEST(ModelledTimePacerTest, AFamilyWithoutFiguresIsNotPacedAndSaysWhy) {
  SimulatedBoard board("agx-orin-r36");
  auto info = info_of(board);
  info.identity.family = "Jetson Nobody";
  std::string why_not;
  EXPECT_EQ(ModelledTimePacer::for_training(board, info, kLenet, 16, why_not), nullptr);
  EXPECT_NE(why_not.find("no throughput figures for family 'Jetson Nobody'"), std::string::npos) << why_not;
}

}  // namespace
}  // namespace jetchar::jetson
